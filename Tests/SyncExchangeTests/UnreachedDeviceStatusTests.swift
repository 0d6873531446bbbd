import Appliance
import CryptoVault
import Foundation
@testable import PeerChannel
import Sync
import Testing
import TestSupport

/// Review 17 F17-10: with the daemon retrying a device that was off, `sync status` kept the last
/// manual sync's time and no error, so the owner saw nothing wrong while nothing synced. A try that
/// never reached the device is now kept as an attempt (SECURITY.md §19.9, "Background sync"): its
/// time and code in `sync status`, its first failure in the audit log, the retries after it not.
@Suite struct UnreachedDeviceStatusTests {
    static func deskStatus(_ fixture: SyncExchangeFixture) throws -> SyncPeerStatus {
        try #require(try SyncStatus.read(fixture.laptop.unlocked).first { $0.device == fixture.deskKeys.profile.deviceID })
    }

    @Test func theBackgroundsFailuresToReachADeviceAreInSyncStatusAndTheLogHoldsTheFirstOnly() throws {
        let fixture = try SyncExchangeFixture()
        let project = try SyncExchangeFixture.project(fixture.desk, "Case notes")
        let recorder = BackgroundSyncTests.Recorder()
        let background = BackgroundSyncTests.background(fixture, recorder, listen: nil,
                                                        policy: SyncSchedule.Policy(firstRetrySeconds: 0.1, maximumRetrySeconds: 0.2, quietSeconds: 600))
        background.start()
        defer { background.stop() }
        let desk = fixture.deskKeys.profile.deviceID
        let before = try Self.deskStatus(fixture)
        #expect(before.lastAttemptAt == nil && before.lastError == nil)

        // Where nothing listens: every try fails to connect.
        background.seen(desk, at: try SocketAddress(parsing: "127.0.0.1:1"))
        #expect(BackgroundSyncTests.eventually(10) { recorder.failures.count >= 3 })
        let failing = try Self.deskStatus(fixture)
        #expect(failing.lastError == "connectionFailed", "\(failing)")
        #expect(failing.lastAttemptAt != nil && failing.lastSyncAt == nil, "\(failing)")
        let logged = ProjectOwnershipTests.entries(fixture.laptop, .syncExchange)
        #expect(logged.count == 1, "\(recorder.failures.count) failures, logged: \(logged)")
        #expect(logged.first?["error"] == "connectionFailed" && logged.first?["peer"] == desk.hex, "\(logged)")

        // Reached at last: the error is gone and the sync's time is the attempt's.
        background.seen(desk, at: fixture.server.address)
        #expect(try BackgroundSyncTests.eventually(10) { try recorder.successes == 1 && SyncExchangeFixture.hasProject(fixture.laptop, project.id) })
        let synced = try Self.deskStatus(fixture)
        #expect(synced.lastError == nil && synced.lastSyncAt != nil && synced.lastSyncAt == synced.lastAttemptAt, "\(synced)")
        #expect(ProjectOwnershipTests.entries(fixture.laptop, .syncExchange).last?["error"] == nil)
    }

    @Test func eachChangeOfFailureCodeIsLoggedAndARepeatOfTheSameIsNot() throws {
        let fixture = try SyncExchangeFixture()
        let desk = fixture.deskKeys.profile.deviceID
        let refused = PeerChannelError(.connectionFailed, "connection refused")
        for _ in 0..<3 { try SyncInitiator.recordUnreached(desk, error: refused, in: fixture.laptop.unlocked) }
        try SyncInitiator.recordUnreached(desk, error: PeerChannelError(.timedOut, "no answer"), in: fixture.laptop.unlocked)
        try SyncInitiator.recordUnreached(desk, error: refused, in: fixture.laptop.unlocked)
        let logged = ProjectOwnershipTests.entries(fixture.laptop, .syncExchange).map { $0["error"] ?? "" }
        #expect(logged == ["connectionFailed", "timedOut", "connectionFailed"])
        #expect(try Self.deskStatus(fixture).lastError == "connectionFailed")
    }
}
