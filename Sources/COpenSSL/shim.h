// Only libcrypto's EVP interfaces are used: SHA-256 digests (on the CPU's SHA extensions where
// present) and the bundle payload's ChaCha20-Poly1305 (§2 of SECURITY.md); nothing from libssl.
#include <openssl/evp.h>
