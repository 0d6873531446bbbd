#include "process_hardening.h"
#include <sys/prctl.h>

int process_hardening_disable_dumps(void) {
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}
