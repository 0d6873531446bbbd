#if canImport(Glibc)
import Glibc
#endif

/// Temporary files carry the id of the process writing them; a file whose process is gone was
/// abandoned by a crash or a kill -9, and may be removed.
package enum ProcessLiveness {
    /// True only when no process `pid` exists: `kill(pid, 0)` fails with ESRCH. A live process, or
    /// one of another user (EPERM), keeps its files; a reused id errs on the side of keeping them.
    package static func isGone(_ pid: Int32) -> Bool {
        pid > 0 && kill(pid, 0) != 0 && errno == ESRCH
    }
}
