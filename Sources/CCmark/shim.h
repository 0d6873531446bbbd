#include <cmark.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

// An allocator for libcmark that zeroes every block before giving it back to malloc, so the copies
// of an imported document that cmark makes (its line buffers, every node's text) do not outlive the
// parse in freed heap memory. They are ordinary heap memory while the parse runs (cmark allocates
// per node, far too often for locked pages). Like cmark's own allocator, it aborts when memory runs
// out: cmark does not check for NULL.

static inline void *ccmark_zeroing_calloc(size_t count, size_t size) {
    void *pointer = calloc(count, size);
    if (pointer == NULL) abort();
    return pointer;
}

static inline void ccmark_zeroing_free(void *pointer) {
    if (pointer == NULL) return;
    explicit_bzero(pointer, malloc_usable_size(pointer));
    free(pointer);
}

// Never realloc in place: glibc's realloc frees the old block unzeroed when it moves it.
static inline void *ccmark_zeroing_realloc(void *pointer, size_t size) {
    void *grown = malloc(size == 0 ? 1 : size);
    if (grown == NULL) abort();
    if (pointer != NULL) {
        size_t old = malloc_usable_size(pointer);
        memcpy(grown, pointer, old < size ? old : size);
        ccmark_zeroing_free(pointer);
    }
    return grown;
}

static inline cmark_mem ccmark_zeroing_allocator(void) {
    cmark_mem allocator = { ccmark_zeroing_calloc, ccmark_zeroing_realloc, ccmark_zeroing_free };
    return allocator;
}
