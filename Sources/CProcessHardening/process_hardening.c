#define _GNU_SOURCE
#include "process_hardening.h"
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sched.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

enum { maximum_descriptors = 8 };

int process_hardening_disable_dumps(void) {
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

int process_hardening_peer_credentials(int descriptor, uid_t *uid, pid_t *pid) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *uid = credentials.uid;
    *pid = credentials.pid;
    return 0;
}

int process_hardening_send_descriptors(int socket, const int *descriptors, int count) {
    if (count < 1 || count > maximum_descriptors) { errno = EINVAL; return -1; }
    char byte = 'F';
    struct iovec vector = { .iov_base = &byte, .iov_len = 1 };
    union { struct cmsghdr header; char space[CMSG_SPACE(sizeof(int) * maximum_descriptors)]; } control;
    memset(&control, 0, sizeof control);
    struct msghdr message = { .msg_iov = &vector, .msg_iovlen = 1,
                              .msg_control = control.space, .msg_controllen = CMSG_SPACE(sizeof(int) * count) };
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int) * count);
    memcpy(CMSG_DATA(header), descriptors, sizeof(int) * count);
    ssize_t sent;
    do { sent = sendmsg(socket, &message, MSG_NOSIGNAL); } while (sent < 0 && errno == EINTR);
    return sent == 1 ? 0 : -1;
}

int process_hardening_receive_descriptors(int socket, int *descriptors, int capacity, int *received) {
    *received = 0;
    char byte = 0;
    struct iovec vector = { .iov_base = &byte, .iov_len = 1 };
    union { struct cmsghdr header; char space[CMSG_SPACE(sizeof(int) * maximum_descriptors)]; } control;
    memset(&control, 0, sizeof control);
    struct msghdr message = { .msg_iov = &vector, .msg_iovlen = 1, .msg_control = control.space, .msg_controllen = sizeof control.space };
    ssize_t got;
    do { got = recvmsg(socket, &message, MSG_CMSG_CLOEXEC); } while (got < 0 && errno == EINTR);
    if (got <= 0) return (int)got;
    int count = 0;
    int overflow = (message.msg_flags & MSG_CTRUNC) != 0;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header != NULL; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
        int n = (int)((header->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        int *incoming = (int *)CMSG_DATA(header);
        for (int i = 0; i < n; i++) {
            if (count < capacity) descriptors[count++] = incoming[i]; else { close(incoming[i]); overflow = 1; }
        }
    }
    if (overflow) {
        for (int i = 0; i < count; i++) close(descriptors[i]);
        errno = EMSGSIZE;
        return -1;
    }
    *received = count;
    return 1;
}

int process_hardening_enter_directory_for_thread(int directory) {
    if (unshare(CLONE_FS) != 0) return -1;
    return fchdir(directory);
}
