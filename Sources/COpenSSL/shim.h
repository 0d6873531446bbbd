// Only libcrypto's EVP digest interface is used (SHA-256, which OpenSSL runs on the CPU's SHA
// extensions where present); nothing from libssl.
#include <openssl/evp.h>
