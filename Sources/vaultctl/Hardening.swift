import CProcessHardening
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Process-wide protections applied before anything secret is touched.
enum Hardening {
    static func apply() {
        // New files are private to the owner: vault databases, share files, temporary outputs.
        umask(0o077)
        // No core dumps: a crash must not write key material to disk.
        var noCore = rlimit(rlim_cur: 0, rlim_max: 0)
        setrlimit(Int32(RLIMIT_CORE.rawValue), &noCore)
        // Not dumpable: other processes of the same user cannot ptrace us or read our memory.
        _ = process_hardening_disable_dumps()
    }
}
