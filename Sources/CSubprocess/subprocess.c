#define _GNU_SOURCE
#include "subprocess.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <time.h>
#include <unistd.h>

static void close_pair(int pair[2]) {
    if (pair[0] >= 0) close(pair[0]);
    if (pair[1] >= 0) close(pair[1]);
}

int subprocess_spawn(const char *const argv[], const char *const envp[], pid_t *pid, int *to_child, int *from_child) {
    int input[2] = {-1, -1}, output[2] = {-1, -1};
    if (pipe2(input, O_CLOEXEC) != 0) return -1;
    if (pipe2(output, O_CLOEXEC) != 0) { close_pair(input); return -1; }
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attributes);
    /* dup2 clears close-on-exec on the child's copies; everything from 3 up is closed, so the server
       inherits no vault file, socket or passphrase descriptor of ours. */
    posix_spawn_file_actions_adddup2(&actions, input[0], 0);
    posix_spawn_file_actions_adddup2(&actions, output[1], 1);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    sigset_t empty, defaults;
    sigemptyset(&empty);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_setsigmask(&attributes, &empty);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    /* A group of its own, so stopping the server also stops whatever it started. */
    posix_spawnattr_setpgroup(&attributes, 0);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    int result = posix_spawnp(pid, argv[0], &actions, &attributes, (char *const *)argv, (char *const *)envp);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    close(input[0]);
    close(output[1]);
    if (result != 0) {
        close(input[1]);
        close(output[0]);
        errno = result;
        return -1;
    }
    fcntl(input[1], F_SETFL, fcntl(input[1], F_GETFL) | O_NONBLOCK);
    fcntl(output[0], F_SETFL, fcntl(output[0], F_GETFL) | O_NONBLOCK);
    *to_child = input[1];
    *from_child = output[0];
    return 0;
}

ssize_t subprocess_write(int descriptor, const void *bytes, size_t count) {
    /* SIGPIPE is raised on the writing thread: block it there, and take a pending one off before
       unblocking, so a server that closed its input makes this write fail instead of the process die. */
    sigset_t pipe_only, previous;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_only, &previous);
    ssize_t written = write(descriptor, bytes, count);
    int saved = errno;
    if (written < 0 && saved == EPIPE) {
        struct timespec zero = {0, 0};
        while (sigtimedwait(&pipe_only, NULL, &zero) == SIGPIPE) {}
    }
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    errno = saved;
    return written;
}
