#ifndef PROCESS_HARDENING_H
#define PROCESS_HARDENING_H
/* Marks the process as not dumpable (no core file, no ptrace by the same user).
   Returns 0 on success, -1 with errno set on failure. prctl is variadic, so it is called from C. */
int process_hardening_disable_dumps(void);
#endif
