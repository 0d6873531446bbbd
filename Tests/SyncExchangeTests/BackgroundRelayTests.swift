import Appliance
import CryptoVault
import Foundation
import PeerChannel
import Sync
import Synchronization
import Testing
import TestSupport
import Writing

/// Review 17 s9, the relay cost of F9's fix: since an idle device in sight syncs only every 15
/// minutes, records the laptop's daemon receives from one device go on at once to the others a save
/// there would reach (`SyncPartners.forSave`), never back to the device that sent them, so an edit
/// relayed between the owner's devices (tablet → laptop → desk) does not wait for a sighting; and a
/// receive in a privileged chart never contacts a colleague. Three real vaults on loopback; the
/// laptop runs `BackgroundSync` (what `vaultctl serve` runs) and answers on a channel of its own;
/// its clock stands still, so nothing here is started by the quiet time running out.
@Suite struct BackgroundRelayTests {
    typealias F = SyncExchangeFixture
    typealias Recorder = BackgroundSyncTests.Recorder

    /// One more device, paired with the laptop only, trusted `trust` both ways, answering the
    /// exchange on a channel of its own.
    final class Device {
        let vault: TestVault
        let keys: DeviceKeys
        let server: ChannelServer

        init(_ name: String, pairedWith f: F, trust: DeviceTrust) throws {
            vault = try TestVault(modules: F.modules)
            keys = try vault.unlocked.deviceKeys(named: name)
            try f.laptop.unlocked.storePairing(FamilyPairing(peer: keys.profile, role: .host, pairedAt: 1))
            try vault.unlocked.storePairing(FamilyPairing(peer: f.laptopKeys.profile, role: .join, pairedAt: 1))
            try f.laptop.unlocked.setTrust(trust, of: keys.profile.deviceID, atPairing: true)
            try vault.unlocked.setTrust(trust, of: f.laptopKeys.profile.deviceID, atPairing: true)
            let own = vault.unlocked
            server = try ChannelServer(address: SocketAddress(parsing: "127.0.0.1:0"), localKeys: keys,
                                       pinnedPeers: { try own.vault.familyPairings() },
                                       services: [SyncChannelService(vault: vault.unlocked, coordinator: nil)])
            server.start()
        }

        deinit { server.stop() }

        var id: DeviceID { keys.profile.deviceID }

        /// `vaultctl sync now` here, with the laptop at `laptop` (the laptop answers).
        func sync(withLaptopAt laptop: ChannelServer, _ f: F) throws {
            let client = try ChannelClient(connectingTo: laptop.address, localKeys: keys, peer: f.laptopKeys.profile)
            _ = try SyncInitiator(vault: vault.unlocked, transport: ChannelSyncTransport(client), coordinator: nil).run()
        }
    }

    /// The laptop's daemon: its channel (answering the exchange) and its background sync, with a
    /// clock that stands still unless the test moves it, the desk and `others` reached before.
    final class Laptop {
        let server: ChannelServer
        let background: BackgroundSync
        let recorder = Recorder()

        init(_ f: F, reaching others: [Device]) throws {
            let vault = f.laptop.unlocked
            server = try ChannelServer(address: SocketAddress(parsing: "127.0.0.1:0"), localKeys: f.laptopKeys,
                                       pinnedPeers: { try vault.vault.familyPairings() },
                                       services: [SyncChannelService(vault: vault, coordinator: nil)])
            server.start()
            HeardAddresses.shared.reached(f.deskKeys.profile.deviceID, at: f.server.address)
            for device in others { HeardAddresses.shared.reached(device.id, at: device.server.address) }
            let stands = VaultClock.forwardOnly { 1_000 }
            background = BackgroundSyncTests.background(f, recorder, listen: nil, clock: stands)
            background.start()
        }

        deinit {
            background.stop()
            server.stop()
        }

        func started(_ device: DeviceID) -> Int {
            recorder.events.withLock { $0.filter { if case .started(device, _) = $0 { true } else { false } }.count }
        }

        var log: String { "\(recorder.events.withLock { $0 })" }
    }

    @Test func anEditReceivedFromOneOwnDeviceGoesOnToTheOthersAtOnceAndNeverBackToTheSender() throws {
        let f = try F()
        let tablet = try Device("tablet", pairedWith: f, trust: .mine)
        let desk = f.deskKeys.profile.deviceID
        let project = try F.project(tablet.vault, "Case notes")
        let document = try F.document(tablet.vault, in: project, "Intake", ["written on the tablet"])
        let laptop = try Laptop(f, reaching: [tablet])
        // The laptop asks the tablet (a sighting): what it takes goes on to the desk, never seen.
        laptop.background.seen(tablet.id, at: tablet.server.address)
        #expect(try BackgroundSyncTests.eventually(20) {
            (try? F.texts(f.desk, project.id, document)) == ["written on the tablet"]
        }, "the tablet's edit did not reach the desk through the laptop: \(laptop.log)")
        // The tablet asks the laptop (its save's sync): the laptop answers, and passes it on at once.
        let held = try tablet.vault.unlocked.transaction { tx in try WritingStore(tx).project(project.id) }
        try F.edit(tablet.vault, held, document, block: 0, to: "revised on the tablet")
        try tablet.sync(withLaptopAt: laptop.server, f)
        #expect(try BackgroundSyncTests.eventually(20) {
            (try? F.texts(f.desk, project.id, document)) == ["revised on the tablet"]
        }, "the tablet's push to the laptop did not reach the desk: \(laptop.log)")
        // Bounded: the desk's syncs stored nothing new on the laptop, so nothing more starts; the
        // tablet was asked once, by its sighting, never by the relay of what it sent.
        Thread.sleep(forTimeInterval: 1)
        #expect(laptop.started(tablet.id) == 1, "\(laptop.log)")
        #expect(laptop.started(desk) == 2, "\(laptop.log)")
        #expect(laptop.recorder.failures.isEmpty, "\(laptop.log)")
    }

    @Test func aRecordReceivedInAPrivilegedChartNeverContactsAColleagueAndOneInTheSharedProjectDoes() throws {
        // The desk is a colleague here: someone else's device, with the laptop's memo shared with it.
        let f = try F(deskTrusts: .other, laptopTrusts: .other)
        let colleague = f.deskKeys.profile.deviceID
        let tablet = try Device("tablet", pairedWith: f, trust: .mine)
        let memo = try F.project(f.laptop, "Shared memo")
        let page = try F.document(f.laptop, in: memo, "Page", ["first"])
        try F.share(memo, of: f.laptop, with: f.desk, role: .editor)
        let chart = try F.project(tablet.vault, "Patient X", register: .healthcare)
        _ = try F.document(tablet.vault, in: chart, "Session", ["what the patient said"])
        let laptop = try Laptop(f, reaching: [tablet])
        // The laptop takes the chart from the tablet (and gives it the memo).
        laptop.background.seen(tablet.id, at: tablet.server.address)
        #expect(try BackgroundSyncTests.eventually(20) { try F.hasProject(f.laptop, chart.id) && F.hasProject(tablet.vault, memo.id) }, "\(laptop.log)")
        #expect(!BackgroundSyncTests.eventually(1) { laptop.started(colleague) > 0 },
                "a record received in a privileged chart contacted the colleague's device: \(laptop.log)")
        // An edit of the shared memo, sent by the tablet: it goes on to the colleague at once.
        let held = try tablet.vault.unlocked.transaction { tx in try WritingStore(tx).project(memo.id) }
        try F.edit(tablet.vault, held, page, block: 0, to: "first, revised on the tablet")
        try tablet.sync(withLaptopAt: laptop.server, f)
        #expect(BackgroundSyncTests.eventually(20) { laptop.started(colleague) == 1 && laptop.recorder.successes == 2 }, "\(laptop.log)")
        #expect(laptop.started(tablet.id) == 1, "\(laptop.log)")
    }

    /// Review 17 s10, N-s10-6 (the relay's cost, c05333d's review): a colleague's saves in a memo
    /// the owner shared, relayed at once to the owner's other device, sync the memo alone (a save's
    /// sync, `SyncInitiator.scope`): no privileged session of the owner's charts opens on either own
    /// device, where each relay ran a whole exchange, a session per chart on both (+18/+12 entries
    /// per save with 3 charts).
    @Test func aColleaguesSavesRelayedToTheOtherOwnDeviceOpenNoPrivilegedSession() throws {
        let f = try F()
        let colleague = try Device("colleague", pairedWith: f, trust: .other)
        let charts = try ExchangeSessionCostTests.charts(on: f.laptop)
        let memo = try F.project(f.laptop, "Shared memo")
        let page = try F.document(f.laptop, in: memo, "Page", ["first"])
        try F.share(memo, of: f.laptop, with: colleague.vault, role: .editor)
        let laptop = try Laptop(f, reaching: [colleague])
        // A sighting of the desk brings it the charts and the memo; the colleague takes the memo.
        laptop.background.seen(f.deskKeys.profile.deviceID, at: f.server.address)
        #expect(try BackgroundSyncTests.eventually(20) {
            try laptop.recorder.successes == 1 && F.hasProject(f.desk, memo.id) && charts.allSatisfy { try F.hasProject(f.desk, $0.project.id) }
        }, "\(laptop.log)")
        try colleague.sync(withLaptopAt: laptop.server, f)
        let held = try colleague.vault.unlocked.transaction { tx in try WritingStore(tx).project(memo.id) }
        let before = (ExchangeSessionCostTests.syncSessions(f.laptop), ExchangeSessionCostTests.syncSessions(f.desk))
        // Five saves of the colleague's, each pushed to the laptop and relayed to the desk at once.
        for number in 1...5 {
            try F.edit(colleague.vault, held, page, block: 0, to: "typed by the colleague, save \(number)")
            try colleague.sync(withLaptopAt: laptop.server, f)
            #expect(BackgroundSyncTests.eventually(20) {
                laptop.recorder.successes == 1 + number && (try? F.texts(f.desk, memo.id, page)) == ["typed by the colleague, save \(number)"]
            }, "save \(number): \(laptop.log)")
        }
        let (laptopNow, deskNow) = (ExchangeSessionCostTests.syncSessions(f.laptop), ExchangeSessionCostTests.syncSessions(f.desk))
        #expect(laptopNow == before.0, "the laptop opened \(laptopNow.count - before.0.count) sessions")
        #expect(deskNow == before.1, "the desk opened \(deskNow.count - before.1.count) sessions")
        #expect(laptop.started(colleague.id) == 0, "\(laptop.log)")
        #expect(laptop.recorder.failures.isEmpty, "\(laptop.log)")
    }
}
