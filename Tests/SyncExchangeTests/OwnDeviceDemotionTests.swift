import Appliance
import CryptoVault
import PeerChannel
import Sync
import Testing
import TestSupport
import Writing

/// Review 17 s8, F4 (b): `peers trust --peer L other` (or `peers revoke`) on one own device reaches
/// the owner's other own devices in the exchange (`sync.demotions`): demotion wins, never promotion,
/// applied and recorded on each, so no privileged word reaches L through another own device and the
/// owner's own devices do not split on L's records.
@Suite struct OwnDeviceDemotionTests {
    static let desk = 0, laptop = 1, tablet = 2

    /// Desk, laptop and tablet, every pair paired and trusting each other 'mine', each answering the
    /// exchange on a channel of its own on loopback.
    final class OwnDevices {
        let vaults: [TestVault]
        let keys: [DeviceKeys]
        let servers: [ChannelServer]

        init() throws {
            let vaults = try (0..<3).map { _ in try TestVault(modules: SyncExchangeFixture.modules) }
            let keys = try zip(vaults, ["desk", "laptop", "tablet"]).map { try $0.unlocked.deviceKeys(named: $1) }
            self.vaults = vaults
            self.keys = keys
            for a in 0..<3 {
                for b in 0..<3 where a != b {
                    try vaults[a].unlocked.storePairing(FamilyPairing(peer: keys[b].profile, role: a < b ? .host : .join, pairedAt: 1))
                    try vaults[a].unlocked.setTrust(.mine, of: keys[b].profile.deviceID, atPairing: true)
                }
            }
            servers = try (0..<3).map { device in
                let vault = vaults[device].unlocked
                let server = try ChannelServer(address: SocketAddress(parsing: "127.0.0.1:0"), localKeys: keys[device],
                                               pinnedPeers: { try vault.vault.familyPairings() },
                                               services: [SyncChannelService(vault: vault, coordinator: nil)])
                server.start()
                return server
            }
        }

        deinit { servers.forEach { $0.stop() } }

        /// `vaultctl sync now` on `asker` with `answerer`.
        @discardableResult
        func sync(_ asker: Int, with answerer: Int) throws -> SyncRunReport {
            let client = try ChannelClient(connectingTo: servers[answerer].address, localKeys: keys[asker], peer: keys[answerer].profile)
            return try SyncInitiator(vault: vaults[asker].unlocked, transport: ChannelSyncTransport(client), coordinator: nil).run()
        }

        func id(_ device: Int) -> DeviceID { keys[device].profile.deviceID }

        func pairing(of device: Int, on vault: Int) throws -> FamilyPairing {
            try #require(try vaults[vault].unlocked.vault.familyPairings().first { $0.peer.deviceID == id(device) })
        }

        /// The project as `device` holds it (each vault has a compartment of its own for it).
        func project(_ id: ProjectID, on device: Int) throws -> WritingProject {
            try vaults[device].unlocked.transaction { tx in try WritingStore(tx).project(id) }
        }

        func privilegedProject(on device: Int, _ name: String, _ line: String) throws -> (WritingProject, NodeID) {
            let project = try vaults[device].unlocked.createProjectMadeHere(named: name, register: .healthcare, kind: .document, privileged: true)
            return (project, try SyncExchangeFixture.document(vaults[device], in: project, "Notes", [line]))
        }
    }

    @Test func aDemotionOnTheDeskReachesTheTabletSoThePrivilegedProjectsOfTheDeskNeverReachTheLaptop() throws {
        let f = try OwnDevices()
        let (desk, laptop, tablet) = (Self.desk, Self.laptop, Self.tablet)
        // P: a privileged project all three held while the laptop was the owner's.
        let (p, notes) = try f.privilegedProject(on: desk, "Patient B", "First visit.")
        try f.sync(tablet, with: desk)
        try f.sync(laptop, with: tablet)
        #expect(try SyncExchangeFixture.hasProject(f.vaults[laptop], p.id))

        // The laptop goes to a colleague: the owner says so on the desk alone.
        #expect(try f.vaults[desk].unlocked.setTrustPassingOnDemotion(.other, of: try f.pairing(of: laptop, on: desk)))
        let (q, _) = try f.privilegedProject(on: desk, "Patient C", "Presenting complaint: private.")

        // Desk ↔ tablet: the tablet takes Q and the demotion, and trusts the laptop 'other' too.
        try f.sync(tablet, with: desk)
        #expect(try SyncExchangeFixture.hasProject(f.vaults[tablet], q.id))
        #expect(try f.vaults[tablet].unlocked.vault.trust(of: f.id(laptop)) == .other)
        let demoted = f.vaults[tablet].recording.events.withLock { $0.filter { $0.action == .syncDeviceDemoted } }
        #expect(demoted.count == 1)
        #expect(demoted.first?.subjectID == f.id(laptop).bytes)
        #expect(SyncExchangeFixture.details(f.vaults[tablet], .syncDeviceDemoted, "by") == [f.id(desk).hex])
        #expect(SyncExchangeFixture.details(f.vaults[tablet], .syncDeviceDemoted, "peer") == [f.id(desk).hex])
        #expect(SyncExchangeFixture.details(f.vaults[tablet], .peerTrust, "reason") == ["relayed-demotion"])
        #expect(try f.vaults[tablet].unlocked.heldDemotions().map(\.device) == [f.id(laptop)])

        // The laptop (now the colleague's) writes in P and syncs with the tablet: it receives
        // nothing privileged, and what it sends is refused and recorded on the tablet.
        try SyncExchangeFixture.edit(f.vaults[laptop], try f.project(p.id, on: laptop), notes, block: 0, to: "Written on the handed-over laptop.")
        _ = try? f.sync(laptop, with: tablet)
        #expect(try !SyncExchangeFixture.hasProject(f.vaults[laptop], q.id), "a privileged project of the desk reached the demoted laptop")
        #expect(SyncExchangeFixture.details(f.vaults[tablet], .syncExchangeRefused, "peer").contains(f.id(laptop).hex))
        #expect(try SyncExchangeFixture.texts(f.vaults[tablet], p.id, notes) == ["First visit."])

        // No split: what the tablet writes in P reaches the desk.
        try SyncExchangeFixture.edit(f.vaults[tablet], try f.project(p.id, on: tablet), notes, block: 0, to: "Second visit, on the tablet.")
        try f.sync(tablet, with: desk)
        #expect(try SyncExchangeFixture.texts(f.vaults[desk], p.id, notes) == ["Second visit, on the tablet."])
    }

    @Test func aRevocationOnTheDeskIsPassedOnAsADemotion() throws {
        let f = try OwnDevices()
        try f.vaults[Self.desk].unlocked.revokePairingPassingOnDemotion(try f.pairing(of: Self.laptop, on: Self.desk))
        try f.sync(Self.tablet, with: Self.desk)
        #expect(try f.vaults[Self.tablet].unlocked.vault.trust(of: f.id(Self.laptop)) == .other)
    }

    @Test func theAskerPassesItsDemotionsTooAndPromotionIsNeverPassedOn() throws {
        let f = try OwnDevices()
        // Demoted on the tablet, which then asks the desk: the desk learns it from the request.
        try f.vaults[Self.tablet].unlocked.setTrustPassingOnDemotion(.other, of: try f.pairing(of: Self.laptop, on: Self.tablet))
        try f.sync(Self.tablet, with: Self.desk)
        #expect(try f.vaults[Self.desk].unlocked.vault.trust(of: f.id(Self.laptop)) == .other)
        // The owner makes it theirs again on the tablet: that is the tablet's word alone, and the
        // desk's demotion, older than it, does not undo it; the desk keeps the laptop 'other'.
        try f.vaults[Self.tablet].unlocked.setTrustPassingOnDemotion(.mine, of: try f.pairing(of: Self.laptop, on: Self.tablet))
        #expect(try f.vaults[Self.tablet].unlocked.heldDemotions().isEmpty)
        try f.sync(Self.tablet, with: Self.desk)
        #expect(try f.vaults[Self.desk].unlocked.vault.trust(of: f.id(Self.laptop)) == .other)
    }

    /// A demotion list of one device, as `device` would send it.
    static func list(naming named: DeviceID, by device: DeviceID) -> [UInt8] {
        SyncDemotionList([SyncDemotion(device: named, signingKey: [UInt8](repeating: 7, count: 32), demotedAt: 1, demotedBy: device)]).serialized()
    }

    @Test func someoneElsesDeviceNeitherDemotesTheOwnersDevicesNorLearnsWhoIsDemoted() throws {
        let f = try OwnDevices()
        let tablet = f.vaults[Self.tablet].unlocked
        try tablet.setTrustPassingOnDemotion(.other, of: try f.pairing(of: Self.laptop, on: Self.tablet))
        let responder = SyncResponder(vault: tablet)
        // The laptop, now someone else's on the tablet, says the desk is no longer the owner's.
        let answer = try responder.respond(to: SyncWire.demotionsKind, body: Self.list(naming: f.id(Self.desk), by: f.id(Self.laptop)),
                                           from: f.keys[Self.laptop].profile)
        #expect(try tablet.vault.trust(of: f.id(Self.desk)) == .mine)
        #expect(try SyncDemotionList(parsing: answer.bytes).demotions.isEmpty, "the tablet told someone else's device whom it demoted")
        #expect(try tablet.heldDemotions().map(\.device) == [f.id(Self.laptop)])
        #expect(f.vaults[Self.tablet].recording.events.withLock { !$0.contains { $0.action == .syncDeviceDemoted } })

        // An own device's word is taken (a phone this vault is not paired with), and it is answered
        // with the tablet's list.
        let phone = try DeviceID(bytes: [UInt8](repeating: 0xF0, count: 16))
        let own = try responder.respond(to: SyncWire.demotionsKind, body: Self.list(naming: phone, by: f.id(Self.desk)), from: f.keys[Self.desk].profile)
        #expect(try SyncDemotionList(parsing: own.bytes).demotions.map(\.device).contains(f.id(Self.laptop)))
        #expect(try Set(tablet.heldDemotions().map(\.device)) == [f.id(Self.laptop), phone])
        #expect(SyncExchangeFixture.details(f.vaults[Self.tablet], .syncDeviceDemoted, "peer") == [f.id(Self.desk).hex])
        // An own device saying the device on the channel itself, or this one, is demoted is not taken.
        _ = try responder.respond(to: SyncWire.demotionsKind, body: Self.list(naming: f.id(Self.desk), by: f.id(Self.desk)), from: f.keys[Self.desk].profile)
        _ = try responder.respond(to: SyncWire.demotionsKind, body: Self.list(naming: f.id(Self.tablet), by: f.id(Self.desk)), from: f.keys[Self.desk].profile)
        #expect(try tablet.vault.trust(of: f.id(Self.desk)) == .mine)
        #expect(try tablet.heldDemotions().count == 2)
    }
}
