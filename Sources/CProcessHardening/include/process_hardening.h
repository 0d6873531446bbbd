#ifndef PROCESS_HARDENING_H
#define PROCESS_HARDENING_H
#include <sys/types.h>
/* Marks the process as not dumpable (no core file, no ptrace by the same user).
   Returns 0 on success, -1 with errno set on failure. prctl is variadic, so it is called from C. */
int process_hardening_disable_dumps(void);

/* The user and process ids of the other end of a connected Unix socket, as the kernel recorded them
   at connect (SO_PEERCRED). Returns 0 on success, -1 with errno set on failure. struct ucred needs
   _GNU_SOURCE, which Swift's Glibc module does not define, so it is read here. */
int process_hardening_peer_credentials(int descriptor, uid_t *uid, pid_t *pid);

/* Sends one byte carrying `count` descriptors (SCM_RIGHTS) on a connected Unix socket: how a client
   hands the daemon its standard streams and working directory (SECURITY.md §10.8). Returns 0 on
   success, -1 with errno set. The cmsg macros are not usable from Swift, so this is C. */
int process_hardening_send_descriptors(int socket, const int *descriptors, int count);

/* Receives the one byte sent by process_hardening_send_descriptors and up to `capacity` descriptors
   (close-on-exec). Descriptors beyond `capacity`, or any that came with truncated control data, are
   closed and the call fails with EMSGSIZE. Returns 1 and sets *received, 0 if the peer closed, or -1
   with errno set. */
int process_hardening_receive_descriptors(int socket, int *descriptors, int capacity, int *received);

/* Gives the calling thread a working directory of its own (unshare(CLONE_FS)) and enters
   `directory` there: the daemon runs a client's command in the client's directory without moving
   any other thread. Returns 0 on success, -1 with errno set. */
int process_hardening_enter_directory_for_thread(int directory);
#endif
