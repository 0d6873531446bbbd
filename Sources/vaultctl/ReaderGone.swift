import CryptoVault
#if canImport(Glibc)
import Glibc
#endif

/// Whether a stream's reader has gone: `vaultctl audit log | head -1` after head read its line and
/// exited. The kernel reports an error condition on the write end of a pipe that no one reads any
/// more, and a hang-up on a socket whose peer closed; a full disk or a failing device reports
/// neither. A command whose reader went away ends quietly with exit 141, the status a shell reports
/// for git or cat ended there by SIGPIPE (review 17 s11, N-s11-6).
enum ReaderGone {
    static func after(writingTo stream: FileDescriptor) -> Bool {
        var entry = pollfd(fd: stream.rawValue, events: Int16(POLLOUT), revents: 0)
        guard poll(&entry, 1, 0) == 1 else { return false }
        return entry.revents & Int16(POLLERR | POLLHUP) != 0
    }
}
