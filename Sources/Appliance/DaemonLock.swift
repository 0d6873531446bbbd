import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The one-daemon-per-vault lock: an exclusive `flock` on `SOCKET.lock`, held for the daemon's life.
/// The kernel drops it when the daemon exits, however it exits, so a killed daemon never blocks the
/// next one; and a socket file left by a killed daemon is removed only by the holder of the lock.
public final class DaemonLock: Sendable {
    private let descriptor: Int32

    public init(socketPath: String) throws(ApplianceError) {
        let path = socketPath + ".lock"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw LocalSocket.failure("open", path) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw ApplianceError(.daemonAlreadyRunning, "another vaultctl serve (or a vaultctl repair) holds this vault (it holds \(path))")
        }
        self.descriptor = descriptor
        Self.removeLeftoverSocket(socketPath)
    }

    deinit { close(descriptor) }

    /// A socket file at the path can only be a dead daemon's, since we hold the lock. Anything that is
    /// not a socket is left alone (bind will then fail and say so).
    private static func removeLeftoverSocket(_ path: String) {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFSOCK else { return }
        unlink(path)
    }
}
