import Appliance
import CryptoVault
import Foundation
import Sync
import Synchronization
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// One exchange at a time between a vault and one peer (SECURITY.md §19.9, "One exchange at a
/// time"; reviewer 17, F17-17): a run that finds another holding `VAULT/sync-PEER.lock` waits within
/// its deadline, then ends `deadlineExceeded` saying what it waited for; once the lock is free, it
/// runs. (Before, runs never waited for one another: this run synced at once.)
@Suite struct SyncExchangeLockTests {
    @Test func aRunWaitsForAnotherHoldingTheExchangeWithThatPeerAndEndsAtItsDeadlineSayingSo() throws {
        let fixture = try SyncExchangeFixture()
        let project = try SyncExchangeFixture.project(fixture.laptop, "Notes")
        _ = try SyncExchangeFixture.document(fixture.laptop, in: project, "Intake", ["first words"])
        let path = fixture.laptop.unlocked.vault.directory + "/sync-" + fixture.deskKeys.profile.deviceID.hex + ".lock"
        let other = open(path, O_RDWR | O_CREAT, 0o600)
        try #require(other >= 0 && flock(other, LOCK_EX | LOCK_NB) == 0)
        let service = SyncDeadlineTests.HoldingService(SyncChannelService(vault: fixture.desk.unlocked, coordinator: nil),
                                                         holding: Set(SyncWire.kinds), delay: 0)
        let (error, seconds) = try SyncDeadlineTests.run(fixture, through: service, deadline: 1.0)
        let waited = try #require(error as? SyncExchangeError, "\(String(describing: error))")
        #expect(waited.code == .deadlineExceeded && waited.message.contains("another sync of this vault with desk"), "\(waited.message)")
        #expect(seconds >= 0.9 && seconds < 15, "ended after \(seconds) s")
        let lastSync = try SyncStatus.read(fixture.laptop.unlocked).first?.lastSyncAt
        #expect(service.asked.withLock { $0 } == 0 && lastSync == nil, "asked while another held the exchange")
        // The other run ends (its holder closes the file, or exits): the next run syncs.
        close(other)
        let (none, _) = try SyncDeadlineTests.run(fixture, through: service, deadline: 60)
        #expect(none == nil && service.asked.withLock { $0 } > 0, "\(String(describing: none))")
    }
}
