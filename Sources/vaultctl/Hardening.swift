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
        // A reader that stops early (`vaultctl audit log | head -1`) fails the writes to it (EPIPE)
        // instead of killing this process in the middle of a command: the command ends its work
        // (its transaction, its checkpoint) and then exits quietly (`ReaderGone`). An MCP server
        // starts with SIGPIPE at its default again (CSubprocess); pandoc keeps the ignore, so a
        // closed pipe fails its write, which it reports, and the export fails as before.
        signal(SIGPIPE, SIG_IGN)
    }
}
