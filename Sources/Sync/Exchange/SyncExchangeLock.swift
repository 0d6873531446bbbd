import CryptoVault
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One exchange at a time between this vault and one peer (SECURITY.md §19.9, "One exchange at a
/// time"): an exclusive `flock` on `VAULT/sync-PEER.lock` (0600), taken by the asking side for the
/// whole run (`SyncInitiator.run`), whoever runs it (`vaultctl sync now`, the daemon's background
/// sync, the console). Two overlapping runs with one peer each asked what the other lacked before
/// either took it, then pushed and pulled the same records twice, and the side taking one second
/// refused it as a replay (`replayedRecord`, audited: the hostile-peer reason for a race between
/// the owner's own exchanges; reviewer 17, F17-17). A replay is still refused and audited: a record
/// already held never arrives from an honest run that had the vault to itself.
///
/// `flock` binds the lock to the open file, so two runs in one process (the daemon's threads)
/// exclude each other as two processes do, and the kernel drops it when its holder exits, however
/// it exits: a killed run never blocks the next.
final class SyncExchangeLock {
    private let descriptor: Int32

    /// How often a waiting run tries the lock again.
    static let pollMicroseconds: useconds_t = 50_000

    /// Takes the lock, waiting while another run holds it, at most until the run's `deadline`
    /// (its wait is part of the run's time): then `deadlineExceeded` naming what it waited for.
    /// A vault folder where the file cannot be made (read-only: nothing to sync into) runs unlocked.
    init?(vault: UnlockedVault, peer: DeviceProfile, until deadline: SyncDeadline) throws {
        let path = vault.vault.directory + "/sync-" + peer.deviceID.hex + ".lock"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { return nil }
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard (try? deadline.remaining(with: peer)) != nil else {
                close(descriptor)
                throw SyncExchangeError(.deadlineExceeded, "another sync of this vault with \(peer.name) (a 'vaultctl sync now', or the "
                                        + "daemon's background sync) ran for all of this run's \(Int(deadline.seconds.rounded(.up))) s; "
                                        + "run 'vaultctl sync now' again once it ends")
            }
            usleep(Self.pollMicroseconds)
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }
}
