#ifndef SUBPROCESS_H
#define SUBPROCESS_H
#include <sys/types.h>
/* Starts `argv[0]` (looked up on PATH) with `envp` as its whole environment, in a process group of
   its own, its standard input and output connected to two new pipes and its standard error to
   /dev/null, with every other descriptor closed and the signal mask and SIGPIPE reset to defaults.
   On success returns 0 and sets *pid, *to_child (write end, the child's stdin) and *from_child (read
   end, the child's stdout), both close-on-exec and non-blocking. Returns -1 with errno set on
   failure, with nothing left open. In C because the calls it needs (pipe2, closefrom in spawn file
   actions) need _GNU_SOURCE, which Swift's Glibc module does not define. */
int subprocess_spawn(const char *const argv[], const char *const envp[], pid_t *pid, int *to_child, int *from_child);

/* Writes up to `count` bytes to a pipe without raising SIGPIPE in this process if the reader has
   gone: the write fails with EPIPE instead. Returns the count written or -1 with errno set. */
ssize_t subprocess_write(int descriptor, const void *bytes, size_t count);
#endif
