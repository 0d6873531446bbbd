import Appliance
import CryptoVault
import PeerChannel
import PrivilegedSession
@testable import Sync
import Testing
import TestSupport
import Writing

/// A project shared with someone else's device still syncs between the owner's own devices
/// (SECURITY.md §19.9, "Which keys verify"): the desk offers its own devices the project's signers
/// that still write it, so the colleague's records the desk took verify on the laptop too, and the
/// desk's later records (which follow them) are not left waiting. Three real vaults; the desk
/// answers on a real channel on loopback, the laptop (the owner's) and the colleague (an editor) ask.
@Suite(.serialized) struct SharedProjectRosterTests {
    typealias F = SyncExchangeFixture

    /// A colleague's vault paired with the desk, each trusting the other as someone else's ('other').
    static func colleague(pairedWith f: F) throws -> (TestVault, DeviceKeys) {
        let colleague = try TestVault(modules: F.modules)
        let keys = try colleague.unlocked.deviceKeys(named: "colleague")
        try f.desk.unlocked.storePairing(FamilyPairing(peer: keys.profile, role: .host, pairedAt: 1))
        try colleague.unlocked.storePairing(FamilyPairing(peer: f.deskKeys.profile, role: .join, pairedAt: 1))
        try f.desk.unlocked.setTrust(.other, of: keys.profile.deviceID, atPairing: true)
        try colleague.unlocked.setTrust(.other, of: f.deskKeys.profile.deviceID, atPairing: true)
        return (colleague, keys)
    }

    /// `vaultctl sync now` on the colleague, with the desk.
    static func sync(_ colleague: TestVault, _ keys: DeviceKeys, with f: F) throws -> SyncRunReport {
        let client = try ChannelClient(connectingTo: f.server.address, localKeys: keys, peer: f.deskKeys.profile)
        return try SyncInitiator(vault: colleague.unlocked, transport: ChannelSyncTransport(client), coordinator: nil).run()
    }

    @Test func aColleaguesEditsReachTheOwnersOtherDeviceAndTheOwnersLaterEditsStillFollow() throws {
        let f = try F()
        let (colleague, colleagueKeys) = try Self.colleague(pairedWith: f)
        func syncColleague() throws -> SyncRunReport { try Self.sync(colleague, colleagueKeys, with: f) }

        let project = try F.project(f.desk, "Brief")
        let document = try F.document(f.desk, in: project, "Draft", ["first", "second"])
        try F.share(project, of: f.desk, with: colleague, role: .editor)
        #expect(try f.syncLaptop().received == 1)
        #expect(try syncColleague().received == 1)
        let colleagues = try colleague.unlocked.transaction { tx in try WritingStore(tx).project(project.id) }
        try F.edit(colleague, colleagues, document, block: 1, to: "second, by the colleague")
        #expect(try syncColleague().sent == 1)

        let relayed = try f.syncLaptop()
        #expect(relayed.received == 1 && relayed.refused == 0, "\(relayed)")
        #expect(try F.texts(f.laptop, project.id, document) == ["first", "second, by the colleague"])
        #expect(F.details(f.laptop, .syncRosterAdd, "device").contains(colleagueKeys.profile.deviceID.hex))
        // The desk's next edit follows the colleague's record: the laptop takes it too.
        try F.edit(f.desk, project, document, block: 0, to: "first, at the desk")
        let later = try f.syncLaptop()
        #expect(later.received == 1 && later.refused == 0, "\(later)")
        #expect(try F.texts(f.laptop, project.id, document) == ["first, at the desk", "second, by the colleague"])
    }

    /// A third own device, paired with the laptop only, learns the colleague (an editor the laptop
    /// is not paired with) from the laptop's roster alone: the laptop keeps both of the colleague's
    /// keys from the desk's offer (`sync_roster.noise_key`) and names it in its own offer, so the
    /// colleague's record and the desk's record built on it verify on the tablet.
    @Test func aThirdOwnDeviceLearnsAnEditorFromTheRosterAlone() throws {
        let f = try F()
        let (colleague, colleagueKeys) = try Self.colleague(pairedWith: f)
        let tablet = try TestVault(modules: F.modules)
        let tabletKeys = try tablet.unlocked.deviceKeys(named: "tablet")
        try f.laptop.unlocked.storePairing(FamilyPairing(peer: tabletKeys.profile, role: .host, pairedAt: 1))
        try tablet.unlocked.storePairing(FamilyPairing(peer: f.laptopKeys.profile, role: .join, pairedAt: 1))
        try f.laptop.unlocked.setTrust(.mine, of: tabletKeys.profile.deviceID, atPairing: true)
        try tablet.unlocked.setTrust(.mine, of: f.laptopKeys.profile.deviceID, atPairing: true)
        let laptopVault = f.laptop.unlocked
        let laptopServer = try ChannelServer(address: SocketAddress(parsing: "127.0.0.1:0"), localKeys: f.laptopKeys,
                                             pinnedPeers: { try laptopVault.vault.familyPairings() },
                                             services: [SyncChannelService(vault: f.laptop.unlocked, coordinator: nil)])
        laptopServer.start()
        defer { laptopServer.stop() }
        func syncColleague() throws -> SyncRunReport { try Self.sync(colleague, colleagueKeys, with: f) }
        func syncTablet() throws -> SyncRunReport {
            let client = try ChannelClient(connectingTo: laptopServer.address, localKeys: tabletKeys, peer: f.laptopKeys.profile)
            return try SyncInitiator(vault: tablet.unlocked, transport: ChannelSyncTransport(client), coordinator: nil).run()
        }

        let project = try F.project(f.desk, "Brief")
        let document = try F.document(f.desk, in: project, "Draft", ["first", "second"])
        try F.share(project, of: f.desk, with: colleague, role: .editor)
        #expect(try syncColleague().received == 1)
        let colleagues = try colleague.unlocked.transaction { tx in try WritingStore(tx).project(project.id) }
        try F.edit(colleague, colleagues, document, block: 1, to: "second, by the colleague")
        #expect(try syncColleague().sent == 1)
        try F.edit(f.desk, project, document, block: 0, to: "first, at the desk")
        let relayed = try f.syncLaptop()
        #expect(relayed.received == 3 && relayed.refused == 0, "\(relayed)")

        // The tablet never met the colleague nor the desk's pairing with it: only the laptop's roster names it.
        let report = try syncTablet()
        #expect(report.received == 3 && report.refused == 0, "\(report)")
        #expect(try F.texts(tablet, project.id, document) == ["first, at the desk", "second, by the colleague"])
        let vouched = tablet.recording.events.withLock { events in
            events.filter { $0.action == .syncRosterAdd && $0.details.contains { $0.name == "device" && $0.value == colleagueKeys.profile.deviceID.hex } }
                .flatMap { $0.details.filter { $0.name == "vouched-by" }.map(\.value) }
        }
        #expect(vouched == [f.laptopKeys.profile.deviceID.hex])
    }

    /// An editor's share revoked on the desk after the desk took its edit: the laptop, first syncing
    /// the project after the revoke, still takes the colleague's record and the desk's records built
    /// on it (the desk's roster names the ended editor, whose records it holds), so it ends with all
    /// three writers' words and nothing refused; a record the colleague signs after the revoke is
    /// still refused by the desk (`accessEnded`) and never reaches the laptop (SECURITY.md §19.9,
    /// "The asker's steps"; reviewer s17, F17-16: the laptop refused 4 records, `unknownDevice` and
    /// `missingParents`, at every run).
    @Test func aRevokedEditorsTakenWordsStillReachTheOwnersOtherDeviceButNotOnesSignedAfter() throws {
        let f = try F()
        let (colleague, colleagueKeys) = try Self.colleague(pairedWith: f)
        func syncColleague() throws -> SyncRunReport { try Self.sync(colleague, colleagueKeys, with: f) }

        let project = try F.project(f.desk, "Case")
        let document = try F.document(f.desk, in: project, "Memo", ["Owner first words.", "Notes:"])
        try F.share(project, of: f.desk, with: colleague, role: .editor)
        #expect(try syncColleague().received == 1)
        let colleagues = try colleague.unlocked.transaction { tx in try WritingStore(tx).project(project.id) }
        try F.edit(colleague, colleagues, document, block: 1, to: "Colleague adds.")
        #expect(try syncColleague().sent == 1)
        try SyncControl.revoked(project.compartment, from: colleagueKeys.profile.deviceID, in: f.desk.unlocked)
        try F.edit(f.desk, project, document, block: 0, to: "Owner first words. Owner continues.")

        let report = try f.syncLaptop()
        #expect(report.received == 3 && report.refused == 0 && report.projects.map(\.refused) == [[]], "\(report)")
        #expect(try F.texts(f.laptop, project.id, document) == ["Owner first words. Owner continues.", "Colleague adds."])
        #expect(try f.syncLaptop().refused == 0)

        // What the colleague signs after the revoke: the desk refuses it (its access ended there), so the laptop never gets it.
        try F.edit(colleague, colleagues, document, block: 1, to: "Colleague adds after the revoke.")
        let author = SyncAuthor(device: colleagueKeys.profile.deviceID, key: colleagueKeys.signingKey)
        let later = try colleague.unlocked.transaction { tx -> ChangeRecord in
            let signers = [f.deskKeys.profile.deviceID: f.deskKeys.profile.signingPublicKey, author.device: colleagueKeys.profile.signingPublicKey]
            return try #require(try VaultSync(WritingStore(tx), author: author, devices: signers).commitLocalChanges(in: project.id))
        }
        let refused = try SyncEndpoint(vault: f.desk.unlocked, peer: colleagueKeys.profile).receive([later.encoded], for: project, coordinator: nil).refused
        #expect(refused.map(\.error.code.rawValue) == ["accessEnded"])
        #expect(F.details(f.desk, .syncRecordRefused, "reason") == ["accessEnded"])
        let after = try f.syncLaptop()
        #expect(after.received == 0 && after.refused == 0, "\(after)")
        #expect(try F.texts(f.laptop, project.id, document) == ["Owner first words. Owner continues.", "Colleague adds."])
    }

    /// The other direction (reviewer 20, F20-2): the device that shared the project asks, and pushes
    /// the colleague's record and its own later one to an own device that only answers. It offers
    /// that device the project's roster first (`sync.offer`: the device offered the project without
    /// the colleague), so the answering laptop takes both on the desk's word, as it would by asking;
    /// before, it refused them (`unknownDevice`, `missingParents`) at every run, the desk's `sync now`
    /// exited 75, and the laptop's log recorded honest records as refused. Once the rosters agree, a
    /// run sends no offer: nothing leaves when nothing is new.
    @Test func aColleaguesEditsReachTheOwnersOtherDeviceWhenTheSharingDeviceAsks() throws {
        let f = try F()
        // The fixture's asking vault is the desk that shares here; its answering one, the owner's laptop.
        let (desk, deskKeys, laptop) = (f.laptop, f.laptopKeys, f.desk)
        let colleague = try TestVault(modules: F.modules)
        let colleagueKeys = try colleague.unlocked.deviceKeys(named: "colleague")
        try desk.unlocked.storePairing(FamilyPairing(peer: colleagueKeys.profile, role: .host, pairedAt: 1))
        try colleague.unlocked.storePairing(FamilyPairing(peer: deskKeys.profile, role: .join, pairedAt: 1))
        try desk.unlocked.setTrust(.other, of: colleagueKeys.profile.deviceID, atPairing: true)
        try colleague.unlocked.setTrust(.other, of: deskKeys.profile.deviceID, atPairing: true)
        let deskVault = desk.unlocked
        let deskServer = try ChannelServer(address: SocketAddress(parsing: "127.0.0.1:0"), localKeys: deskKeys,
                                           pinnedPeers: { try deskVault.vault.familyPairings() },
                                           services: [SyncChannelService(vault: desk.unlocked, coordinator: nil)])
        deskServer.start()
        defer { deskServer.stop() }
        func syncColleague() throws -> SyncRunReport {
            let client = try ChannelClient(connectingTo: deskServer.address, localKeys: colleagueKeys, peer: deskKeys.profile)
            return try SyncInitiator(vault: colleague.unlocked, transport: ChannelSyncTransport(client), coordinator: nil).run()
        }

        let project = try F.project(desk, "Case")
        let document = try F.document(desk, in: project, "Memo", ["Owner first words.", "Notes:"])
        #expect(try f.syncLaptop().sent == 1)
        #expect(try F.texts(laptop, project.id, document) == ["Owner first words.", "Notes:"])
        try F.share(project, of: desk, with: colleague, role: .editor)
        #expect(try syncColleague().received == 1)
        let colleagues = try colleague.unlocked.transaction { tx in try WritingStore(tx).project(project.id) }
        try F.edit(colleague, colleagues, document, block: 1, to: "Colleague adds.")
        #expect(try syncColleague().sent == 1)
        try F.edit(desk, project, document, block: 0, to: "Owner first words. Owner continues.")

        let report = try f.syncLaptop()
        #expect(report.sent == 2 && report.refused == 0 && report.projects.map(\.refusedByPeer) == [[]], "\(report)")
        #expect(try F.texts(laptop, project.id, document) == ["Owner first words. Owner continues.", "Colleague adds."])
        #expect(F.details(laptop, .syncRecordRefused, "reason").isEmpty)
        #expect(F.details(desk, .syncPushRefused, "reason").isEmpty)
        let vouched = laptop.recording.events.withLock { events in
            events.filter { $0.action == .syncRosterAdd && $0.details.contains { $0.name == "device" && $0.value == colleagueKeys.profile.deviceID.hex } }
                .flatMap { $0.details.filter { $0.name == "vouched-by" }.map(\.value) }
        }
        #expect(vouched == [deskKeys.profile.deviceID.hex])

        // Nothing new: no offer is sent again (the laptop's offer now names the colleague).
        func decisions() -> Int { desk.recording.events.withLock { events in events.filter { $0.action == .egressDecision }.count } }
        let before = decisions()
        let again = try f.syncLaptop()
        #expect(again.sent == 0 && again.refused == 0, "\(again)")
        #expect(decisions() == before)
    }
}
