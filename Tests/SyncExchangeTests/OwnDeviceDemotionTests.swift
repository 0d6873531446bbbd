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

    /// A demotion of `named` (by its signing key `key`) signed with `signer`'s key, at `at`.
    static func signed(naming named: DeviceID, key: [UInt8], by signer: DeviceKeys, at: UInt64) throws -> SyncDemotion {
        let input = SyncDemotion.signingInput(device: named, signingKey: key, demotedBy: signer.profile.deviceID, demotedAt: at)
        return SyncDemotion(device: named, signingKey: key, demotedAt: at, demotedBy: signer.profile.deviceID,
                            signature: try signer.signingKey.signature(for: input))
    }

    static var now: UInt64 { UInt64(VaultClock.system.now()) }

    /// The details of each `sync.exchange-refused` entry of a refused demotion: [device, by, why].
    static func refusedDemotions(_ vault: TestVault) -> [[String]] {
        vault.recording.events.withLock { events in
            events.filter { event in event.action == .syncExchangeRefused && event.details.contains { $0.name == "reason" && $0.value == "demotionRefused" } }
                .map { event in ["device", "by", "why"].map { name in event.details.first { $0.name == name }?.value ?? "" } }
        }
    }

    @Test func someoneElsesDeviceNeitherDemotesTheOwnersDevicesNorLearnsWhoIsDemoted() throws {
        let f = try OwnDevices()
        let tablet = f.vaults[Self.tablet].unlocked
        let responder = SyncResponder(vault: tablet)
        // A colleague's device, paired 'other' and never the owner's: its list is not read at all.
        let colleagueVault = try TestVault(modules: SyncExchangeFixture.modules)
        let colleague = try colleagueVault.unlocked.deviceKeys(named: "colleague")
        try tablet.storePairing(FamilyPairing(peer: colleague.profile, role: .host, pairedAt: 1))
        try tablet.setTrust(.other, of: colleague.profile.deviceID, atPairing: true)
        let desk = try f.pairing(of: Self.desk, on: Self.tablet).peer
        let byColleague = SyncDemotionList([try Self.signed(naming: desk.deviceID, key: desk.signingPublicKey, by: colleague, at: Self.now)])
        let toColleague = try responder.respond(to: SyncWire.demotionsKind, body: byColleague.serialized(), from: colleague.profile)
        #expect(try tablet.vault.trust(of: f.id(Self.desk)) == .mine)
        #expect(Self.refusedDemotions(f.vaults[Self.tablet]).isEmpty)

        // The laptop, which the owner demoted on the tablet, says afterwards the desk is no longer
        // the owner's: refused with its reason, and it is told nothing.
        try tablet.setTrustPassingOnDemotion(.other, of: try f.pairing(of: Self.laptop, on: Self.tablet))
        #expect(try SyncDemotionList(parsing: toColleague.bytes).demotions.isEmpty)
        let byLaptop = SyncDemotionList([try Self.signed(naming: desk.deviceID, key: desk.signingPublicKey, by: f.keys[Self.laptop], at: Self.now)])
        let answer = try responder.respond(to: SyncWire.demotionsKind, body: byLaptop.serialized(), from: f.keys[Self.laptop].profile)
        #expect(try tablet.vault.trust(of: f.id(Self.desk)) == .mine)
        #expect(Self.refusedDemotions(f.vaults[Self.tablet]) == [[f.id(Self.desk).hex, f.id(Self.laptop).hex, "signer-demoted"]])
        #expect(try SyncDemotionList(parsing: answer.bytes).demotions.isEmpty, "the tablet told someone else's device whom it demoted")
        #expect(try tablet.heldDemotions().map(\.device) == [f.id(Self.laptop)])
        #expect(f.vaults[Self.tablet].recording.events.withLock { !$0.contains { $0.action == .syncDeviceDemoted } })

        // An own device's signed word is taken (a phone this vault is not paired with), and it is
        // answered with the tablet's list.
        let phone = try DeviceID(bytes: [UInt8](repeating: 0xF0, count: 16)), phoneKey = [UInt8](repeating: 7, count: 32)
        let byDesk = SyncDemotionList([try Self.signed(naming: phone, key: phoneKey, by: f.keys[Self.desk], at: Self.now)])
        let own = try responder.respond(to: SyncWire.demotionsKind, body: byDesk.serialized(), from: f.keys[Self.desk].profile)
        #expect(try SyncDemotionList(parsing: own.bytes).demotions.map(\.device).contains(f.id(Self.laptop)))
        #expect(try Set(tablet.heldDemotions().map(\.device)) == [f.id(Self.laptop), phone])
        #expect(SyncExchangeFixture.details(f.vaults[Self.tablet], .syncDeviceDemoted, "peer") == [f.id(Self.desk).hex])
        // An own device saying the device on the channel itself, or this one, is demoted is not taken.
        let tabletProfile = f.keys[Self.tablet].profile
        for named in [desk, tabletProfile] {
            let list = SyncDemotionList([try Self.signed(naming: named.deviceID, key: named.signingPublicKey, by: f.keys[Self.desk], at: Self.now)])
            _ = try responder.respond(to: SyncWire.demotionsKind, body: list.serialized(), from: f.keys[Self.desk].profile)
        }
        #expect(try tablet.vault.trust(of: f.id(Self.desk)) == .mine)
        #expect(try tablet.heldDemotions().count == 2)
    }

    /// Review s10 on 365790f (1): an entry whose signature is not its demoting device's (made up by
    /// the device passing it on, changed on the way, or unsigned) is refused and recorded with the
    /// reason; so is one naming a device by another key than the one paired here, or signed by a
    /// device that never was the owner's here.
    @Test func aForgedOrUnsignedDemotionIsRefusedWithItsReason() throws {
        let f = try OwnDevices()
        let tablet = f.vaults[Self.tablet].unlocked
        let responder = SyncResponder(vault: tablet)
        let laptop = try f.pairing(of: Self.laptop, on: Self.tablet).peer
        let honest = try Self.signed(naming: laptop.deviceID, key: laptop.signingPublicKey, by: f.keys[Self.desk], at: Self.now)
        // The desk passes on an entry "the desk demoted the laptop" it signed with another key (the
        // laptop's own here: what a device that only claims the desk's word can do).
        let forged = try Self.signed(naming: laptop.deviceID, key: laptop.signingPublicKey, by: f.keys[Self.laptop], at: Self.now)
        let claimed = SyncDemotion(device: forged.device, signingKey: forged.signingKey, demotedAt: forged.demotedAt,
                                   demotedBy: f.id(Self.desk), signature: forged.signature)
        let unsigned = SyncDemotion(device: laptop.deviceID, signingKey: laptop.signingPublicKey, demotedAt: honest.demotedAt,
                                    demotedBy: f.id(Self.desk), signature: [UInt8](repeating: 0, count: 64))
        let laterTime = SyncDemotion(device: laptop.deviceID, signingKey: laptop.signingPublicKey, demotedAt: honest.demotedAt + 1,
                                     demotedBy: f.id(Self.desk), signature: honest.signature)
        let otherKey = try Self.signed(naming: laptop.deviceID, key: [UInt8](repeating: 9, count: 32), by: f.keys[Self.desk], at: Self.now)
        let stranger = try TestVault(modules: SyncExchangeFixture.modules).unlocked.deviceKeys(named: "stranger")
        let byStranger = try Self.signed(naming: laptop.deviceID, key: laptop.signingPublicKey, by: stranger, at: Self.now)
        for entry in [claimed, unsigned, laterTime, otherKey, byStranger] {
            _ = try responder.respond(to: SyncWire.demotionsKind, body: SyncDemotionList([entry]).serialized(), from: f.keys[Self.desk].profile)
        }
        #expect(try tablet.vault.trust(of: laptop.deviceID) == .mine)
        #expect(try tablet.heldDemotions().isEmpty)
        #expect(f.vaults[Self.tablet].recording.events.withLock { !$0.contains { $0.action == .syncDeviceDemoted } })
        let (l, d) = (laptop.deviceID.hex, f.id(Self.desk).hex)
        #expect(Self.refusedDemotions(f.vaults[Self.tablet]) == [[l, d, "signature"], [l, d, "signature"], [l, d, "signature"], [l, d, "key"],
                                                                  [l, stranger.profile.deviceID.hex, "signer"]])
        // The desk's own signed word is taken.
        _ = try responder.respond(to: SyncWire.demotionsKind, body: SyncDemotionList([honest]).serialized(), from: f.keys[Self.desk].profile)
        #expect(try tablet.vault.trust(of: laptop.deviceID) == .other)
        #expect(try tablet.heldDemotions() == [honest])
    }

    /// Review s10 on 365790f (2): a stolen own laptop T demotes the desk A first and passes it to the
    /// tablet B; the owner then demotes T on the desk. The desk's word still reaches the tablet (the
    /// desk was the owner's there, and its entry is signed by it), so every honest device ends with T
    /// demoted (the tablet with both: the owner re-trusts the desk there by hand), and no privileged
    /// project reaches T again. T's later words are refused where the owner demoted it.
    @Test func aStolenOwnDeviceThatDemotesTheOthersFirstIsStillDemotedEverywhere() throws {
        let f = try OwnDevices()
        let (desk, tablet, thief) = (Self.desk, Self.tablet, Self.laptop)
        // The thief's laptop demotes the desk and passes it to the tablet.
        try f.vaults[thief].unlocked.setTrustPassingOnDemotion(.other, of: try f.pairing(of: desk, on: thief))
        try f.sync(thief, with: tablet)
        #expect(try f.vaults[tablet].unlocked.vault.trust(of: f.id(desk)) == .other)
        // The owner demotes the laptop on the desk; the tablet asks the desk (no longer 'mine' there).
        try f.vaults[desk].unlocked.setTrustPassingOnDemotion(.other, of: try f.pairing(of: thief, on: desk))
        try f.sync(tablet, with: desk)
        #expect(try f.vaults[tablet].unlocked.vault.trust(of: f.id(thief)) == .other)
        #expect(try f.vaults[desk].unlocked.vault.trust(of: f.id(thief)) == .other)
        #expect(Set(SyncExchangeFixture.details(f.vaults[tablet], .syncDeviceDemoted, "by")) == [f.id(thief).hex, f.id(desk).hex])

        // Privileged projects made afterwards on either honest device never reach the laptop.
        let (onTablet, _) = try f.privilegedProject(on: tablet, "Patient D", "Tablet only.")
        let (onDesk, _) = try f.privilegedProject(on: desk, "Patient E", "Desk only.")
        _ = try? f.sync(thief, with: tablet)
        _ = try? f.sync(thief, with: desk)
        _ = try? f.sync(tablet, with: thief)
        _ = try? f.sync(desk, with: thief)
        #expect(try !SyncExchangeFixture.hasProject(f.vaults[thief], onTablet.id))
        #expect(try !SyncExchangeFixture.hasProject(f.vaults[thief], onDesk.id))

        // The laptop demotes the tablet now: the desk, where the owner demoted the laptop before,
        // refuses it with its reason.
        try f.vaults[thief].unlocked.setTrustPassingOnDemotion(.other, of: try f.pairing(of: tablet, on: thief))
        let list = SyncDemotionList(try f.vaults[thief].unlocked.heldDemotions())
        _ = try SyncResponder(vault: f.vaults[desk].unlocked).respond(to: SyncWire.demotionsKind, body: list.serialized(), from: f.keys[thief].profile)
        #expect(try f.vaults[desk].unlocked.vault.trust(of: f.id(tablet)) == .mine)
        #expect(Self.refusedDemotions(f.vaults[desk]) == [[f.id(tablet).hex, f.id(thief).hex, "signer-demoted"]])

        // Review s11 on ad1e099: on the tablet, where the laptop is held demoted by the desk's word,
        // the laptop demotes no device but the desk (a phone: refused); and once the owner makes the
        // desk theirs again on the tablet, the laptop's fresh demotion of the desk is refused too.
        let tabletResponder = SyncResponder(vault: f.vaults[tablet].unlocked)
        let phone = try DeviceID(bytes: [UInt8](repeating: 0xF0, count: 16))
        let ofPhone = try Self.signed(naming: phone, key: [UInt8](repeating: 7, count: 32), by: f.keys[thief], at: Self.now)
        _ = try tabletResponder.respond(to: SyncWire.demotionsKind, body: SyncDemotionList([ofPhone]).serialized(), from: f.keys[thief].profile)
        try f.vaults[tablet].unlocked.setTrustPassingOnDemotion(.mine, of: try f.pairing(of: desk, on: tablet))
        let deskKey = try f.pairing(of: desk, on: tablet).peer.signingPublicKey
        let ofDeskAgain = try Self.signed(naming: f.id(desk), key: deskKey, by: f.keys[thief], at: Self.now + 1)
        _ = try tabletResponder.respond(to: SyncWire.demotionsKind, body: SyncDemotionList([ofDeskAgain]).serialized(), from: f.keys[thief].profile)
        #expect(try f.vaults[tablet].unlocked.vault.trust(of: f.id(desk)) == .mine)
        #expect(try f.vaults[tablet].unlocked.heldDemotions().map(\.device) == [f.id(thief)])
        #expect(Self.refusedDemotions(f.vaults[tablet]) == [[phone.hex, f.id(thief).hex, "signer-demoted"], [f.id(desk).hex, f.id(thief).hex, "signer-demoted"]])
    }

    /// Review s10 on 365790f (3): a demotion's time is the demoting device's clock. One more than
    /// five minutes ahead of this vault's is refused (else it would outrank every later `peers trust
    /// … mine` here); one less far ahead is taken as said now.
    @Test func aDemotionFromTheFutureIsRefusedOrTakenAsSaidNow() throws {
        let f = try OwnDevices()
        let tablet = f.vaults[Self.tablet].unlocked
        let responder = SyncResponder(vault: tablet)
        let laptop = try f.pairing(of: Self.laptop, on: Self.tablet).peer
        let farAhead = try Self.signed(naming: laptop.deviceID, key: laptop.signingPublicKey, by: f.keys[Self.desk], at: Self.now + 3600)
        _ = try responder.respond(to: SyncWire.demotionsKind, body: SyncDemotionList([farAhead]).serialized(), from: f.keys[Self.desk].profile)
        #expect(try tablet.vault.trust(of: laptop.deviceID) == .mine)
        #expect(Self.refusedDemotions(f.vaults[Self.tablet]) == [[laptop.deviceID.hex, f.id(Self.desk).hex, "future"]])

        let before = Self.now
        let nearAhead = try Self.signed(naming: laptop.deviceID, key: laptop.signingPublicKey, by: f.keys[Self.desk], at: before + 120)
        _ = try responder.respond(to: SyncWire.demotionsKind, body: SyncDemotionList([nearAhead]).serialized(), from: f.keys[Self.desk].profile)
        let after = Self.now
        #expect(try tablet.vault.trust(of: laptop.deviceID) == .other)
        let kept = try #require(SyncExchangeFixture.details(f.vaults[Self.tablet], .syncDeviceDemoted, "at").first)
        let at = try #require(UInt64(kept))
        #expect(at >= before && at <= after, "the demotion was kept with a time past the tablet's clock")
        #expect(SyncExchangeFixture.details(f.vaults[Self.tablet], .syncDeviceDemoted, "signed-at") == [String(before + 120)])
        // Passed on as signed (its signature is over the time it names).
        #expect(try tablet.heldDemotions() == [nearAhead])
    }
}
