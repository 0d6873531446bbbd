#include <zlib.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

// An allocator for zlib that zeroes every block before giving it back to malloc: deflate's window and
// hash chains and inflate's window hold pieces of the snapshot being packed or unpacked (a writer's
// text), which must not outlive the call in freed heap memory. zlib checks for NULL itself.

static inline voidpf czlib_zeroing_alloc(voidpf opaque, uInt items, uInt size) {
    (void)opaque;
    return calloc(items, size);
}

static inline void czlib_zeroing_free(voidpf opaque, voidpf pointer) {
    (void)opaque;
    if (pointer == NULL) return;
    explicit_bzero(pointer, malloc_usable_size(pointer));
    free(pointer);
}

// Raw DEFLATE (RFC 1951: no zlib or gzip wrapper, whose checksum the sealed digest makes redundant),
// at the best compression, with the zeroing allocator.
static inline int czlib_deflate_init(z_stream *stream) {
    stream->zalloc = czlib_zeroing_alloc;
    stream->zfree = czlib_zeroing_free;
    stream->opaque = Z_NULL;
    return deflateInit2(stream, Z_BEST_COMPRESSION, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY);
}

static inline int czlib_inflate_init(z_stream *stream) {
    stream->zalloc = czlib_zeroing_alloc;
    stream->zfree = czlib_zeroing_free;
    stream->opaque = Z_NULL;
    return inflateInit2(stream, -15);
}
