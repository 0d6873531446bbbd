import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The daemon's locks, each an exclusive `flock` held for the daemon's life: on `SOCKET.lock` (one
/// daemon per socket), and on `VAULT/daemon.vault.lock` (one daemon, or one repair or compaction, per vault, whatever
/// socket it listens on: `init(vaultDirectory:)`). The kernel drops a lock when its holder exits,
/// however it exits, so a killed daemon never blocks the next one; and a socket file left by a killed
/// daemon is removed only by the holder of its lock.
public final class DaemonLock: Sendable {
    private let descriptor: Int32

    public convenience init(socketPath: String) throws(ApplianceError) {
        try self.init(lockPath: socketPath + ".lock")
        Self.removeLeftoverSocket(socketPath)
    }

    /// The vault's lock, in the vault's own folder: the same file (inode) whichever path or socket a
    /// daemon or a repair names the vault by, so a repair sees a daemon on any socket (SECURITY.md §19.10).
    public convenience init(vaultDirectory: String) throws(ApplianceError) {
        try self.init(lockPath: vaultDirectory + "/daemon.vault.lock")
    }

    private init(lockPath path: String) throws(ApplianceError) {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw LocalSocket.failure("open", path) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw ApplianceError(.daemonAlreadyRunning, "another vaultctl serve (or a vaultctl repair or compact) holds this vault (it holds \(path))")
        }
        self.descriptor = descriptor
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
