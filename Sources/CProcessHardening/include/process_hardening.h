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
#endif
