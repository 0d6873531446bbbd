import Appliance
import CryptoVault
import Dispatch
import Foundation
import PeerChannel
import Sync
import Synchronization
import Testing
import TestSupport
import Writing

/// 'Sync now' has an overall deadline (SECURITY.md §19.9): a peer that stops answering, or answers
/// every request slowly, ends the run with `deadlineExceeded` soon after the deadline, and
/// `sync status` says so; what was taken before stays.
@Suite struct SyncDeadlineTests {
    /// The desk's sync service, holding back its answers to some kinds: until released (a peer that
    /// stopped answering), or for a while each (a slow one).
    final class HoldingService: ChannelService, @unchecked Sendable {
        let inner: SyncChannelService
        let held: Set<String>
        let delay: Double?
        let release = DispatchSemaphore(value: 0)
        /// How many requests of the held kinds came.
        let asked = Mutex(0)

        init(_ inner: SyncChannelService, holding held: Set<String>, delay: Double? = nil) {
            self.inner = inner
            self.held = held
            self.delay = delay
        }

        var requestKinds: [String] { inner.requestKinds }

        func respond(to kind: String, body: [UInt8], from peer: DeviceProfile) throws -> [UInt8] {
            if held.contains(kind) {
                asked.withLock { $0 += 1 }
                if let delay { Thread.sleep(forTimeInterval: delay) } else { release.wait(); release.signal() }
            }
            return try inner.respond(to: kind, body: body, from: peer)
        }
    }

    /// A desk answering through `service`, and a run from the laptop with `deadline` seconds:
    /// the error it ended with and how long it took.
    static func run(_ fixture: SyncExchangeFixture, through service: HoldingService, deadline: Double) throws -> (Error?, Double) {
        let deskVault = fixture.desk.unlocked
        let server = try ChannelServer(address: SocketAddress(parsing: "127.0.0.1:0"), localKeys: fixture.deskKeys,
                                       pinnedPeers: { try deskVault.vault.familyPairings() }, services: [service])
        server.start()
        defer {
            service.release.signal()
            server.stop()
        }
        let client = try ChannelClient(connectingTo: server.address, localKeys: fixture.laptopKeys, peer: fixture.deskKeys.profile,
                                       timeouts: ChannelTimeouts(idleSeconds: 30))
        let initiator = try SyncInitiator(vault: fixture.laptop.unlocked, transport: ChannelSyncTransport(client), coordinator: nil,
                                          deadlineSeconds: deadline)
        let start = VaultClock.system.monotonic()
        do {
            _ = try initiator.run()
            return (nil, VaultClock.system.monotonic() - start)
        } catch {
            return (error, VaultClock.system.monotonic() - start)
        }
    }

    @Test func aPeerThatStopsAnsweringEndsTheRunSoonAfterItsDeadlineAndStatusSaysSo() throws {
        let fixture = try SyncExchangeFixture()
        let project = try SyncExchangeFixture.project(fixture.laptop, "Notes")
        _ = try SyncExchangeFixture.document(fixture.laptop, in: project, "Intake", ["first words"])
        let service = HoldingService(SyncChannelService(vault: fixture.desk.unlocked, coordinator: nil), holding: [SyncWire.pullKind])
        let (error, seconds) = try Self.run(fixture, through: service, deadline: 1.5)
        let stopped = try #require(error as? SyncExchangeError, "\(String(describing: error))")
        #expect(stopped.code == .deadlineExceeded)
        #expect(stopped.message.contains("desk"))
        // Not before its deadline; and long before the channel's 30 s idle timeout, which is what
        // would end a run its deadline does not bound (a generous bound: load only adds to it, F-3).
        #expect(seconds >= 1.4 && seconds < 15, "ended after \(seconds) s")
        let status = try #require(try SyncStatus.read(fixture.laptop.unlocked).first)
        #expect(status.lastError == SyncExchangeErrorCode.deadlineExceeded.rawValue)
        #expect(status.lastSyncAt == nil)
    }

    @Test func aPeerThatAnswersEveryRequestSlowlyEndsTheRunAtItsDeadline() throws {
        let fixture = try SyncExchangeFixture()
        let project = try SyncExchangeFixture.project(fixture.laptop, "Notes")
        _ = try SyncExchangeFixture.document(fixture.laptop, in: project, "Intake", ["first words"])
        // Each answer within any one request's patience, but the run needs more of them than fit.
        let service = HoldingService(SyncChannelService(vault: fixture.desk.unlocked, coordinator: nil),
                                     holding: Set(SyncWire.kinds), delay: 0.6)
        let (error, seconds) = try Self.run(fixture, through: service, deadline: 1.0)
        #expect((error as? SyncExchangeError)?.code == .deadlineExceeded, "\(String(describing: error))")
        // Each answer takes at least 0.6 s, so no third request can start before the 1.0 s deadline
        // and none may start after it; a loaded machine only makes them fewer (flaky risk F-3: a
        // bound on the run's wall time was). The whole run asks more than two.
        #expect(service.asked.withLock { $0 } <= 2, "\(service.asked.withLock { $0 }) requests were asked")
        let prompt = HoldingService(SyncChannelService(vault: fixture.desk.unlocked, coordinator: nil), holding: Set(SyncWire.kinds), delay: 0)
        let (none, _) = try Self.run(fixture, through: prompt, deadline: 60)
        #expect(none == nil && prompt.asked.withLock { $0 } > 2, "\(String(describing: none)), \(prompt.asked.withLock { $0 }) requests")
        #expect(seconds < 15, "ended after \(seconds) s: it hangs")
    }

    @Test func aPeerThatAnswersInTimeSyncsAsEver() throws {
        let fixture = try SyncExchangeFixture()
        let project = try SyncExchangeFixture.project(fixture.laptop, "Notes")
        let document = try SyncExchangeFixture.document(fixture.laptop, in: project, "Intake", ["first words"])
        let service = HoldingService(SyncChannelService(vault: fixture.desk.unlocked, coordinator: nil), holding: [])
        let (error, _) = try Self.run(fixture, through: service, deadline: 60)
        #expect(error == nil, "\(String(describing: error))")
        #expect(try SyncExchangeFixture.texts(fixture.desk, project.id, document) == ["first words"])
    }
}
