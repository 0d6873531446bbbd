import Foundation
import Testing
import TestSupport

/// restore15's leftover ("Surprise, not verified"): `repair --from DEVICE` empties the writing store
/// and every sync table (`WritingStoreReset`), `sync_restore_waits` and `sync_own_floors` among them.
/// A restored vault that still waits for another own device (the tablet, which holds this device's
/// records made after the backup) must keep waiting after it is repaired from the desk, which lacks
/// them: otherwise the restored laptop signs those record numbers again and forks with the tablet.
@Suite(.serialized)
struct RepairFromKeepsRestoreWaitTests {
    @Test func aRestoredVaultRepairedFromTheDeskStillWaitsForTheTablet() throws {
        let setup = try RestoreWaitsForEveryDeviceCommandTests.threeOwnDevices()
        let restored = setup.restored
        try RestoreWaitsForEveryDeviceCommandTests.expectRefusedNaming(restored, "Memo", "Draft", device: setup.tablet,
                                                                      words: RestoreWaitsForEveryDeviceCommandTests.restoredWords)

        let (daemon, address) = try ServeChannelTests.serve(setup.desk)
        let repaired = try restored.run(["repair", "--from", try PeersCommandTests.fingerprint(setup.desk), "--address", address])
        SyncNotInSyncCommandTests.stop(daemon)
        try #require(repaired.status == 0, "\(repaired.stdout) \(repaired.stderr)")

        // Still waiting for the tablet, named; nothing written.
        try RestoreWaitsForEveryDeviceCommandTests.expectRefusedNaming(restored, "Memo", "Draft", device: setup.tablet,
                                                                      words: RestoreWaitsForEveryDeviceCommandTests.restoredWords)
        // The tablet's pull ends it, and the three converge with no fork.
        try ForkedColleagueCommandTests.synced(restored, with: setup.tablet)
        #expect(try RestoreWaitsForEveryDeviceCommandTests.show(restored, "Memo", "Draft").contains("Second, only the tablet got it."))
        let written = try restored.run(["doc", "write", "Memo", "Draft"], stdin: RestoreWaitsForEveryDeviceCommandTests.restoredWords)
        #expect(written.status == 0, "\(written.status): \(written.stderr)")
        for device in [setup.tablet, setup.desk] { try ForkedColleagueCommandTests.synced(restored, with: device) }
        try RestoreWaitsForEveryDeviceCommandTests.expectNoFork([restored, setup.tablet, setup.desk])
    }
}
