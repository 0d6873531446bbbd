import Appliance
import CryptoVault
import PeerChannel
@testable import Sync
import Testing
import TestSupport
import Writing

/// A colleague paired with both of the owner's devices, the project shared (editor) on the desk only
/// (review 17 s8, F19; SECURITY.md §19.9 "Which keys verify"). The laptop never granted nor revoked
/// anything of the project to the colleague: it takes the colleague's records on the desk's word, as
/// it would a device it is not paired with, so the owner's own devices keep syncing the project.
/// What the laptop itself decided still stands: a share it revoked ends the colleague there.
/// Three real vaults; the desk answers on a real channel on loopback, the laptop and the colleague ask.
@Suite(.serialized) struct ColleaguePairedWithBothTests {
    typealias F = SyncExchangeFixture

    /// The desk, the laptop and a colleague paired with both (someone else's device on each side).
    struct Setup {
        let f: F
        let colleague: TestVault
        let colleagueKeys: DeviceKeys

        init(laptopModules: [ModuleSchema] = F.modules) throws {
            f = try F(laptopModules: laptopModules)
            colleague = try TestVault(modules: F.modules)
            colleagueKeys = try colleague.unlocked.deviceKeys(named: "colleague")
            for (owner, keys, role) in [(f.desk, f.deskKeys, FamilyPairing.Role.host), (f.laptop, f.laptopKeys, .host)] {
                try owner.unlocked.storePairing(FamilyPairing(peer: colleagueKeys.profile, role: role, pairedAt: 1))
                try colleague.unlocked.storePairing(FamilyPairing(peer: keys.profile, role: .join, pairedAt: 1))
                try owner.unlocked.setTrust(.other, of: colleagueKeys.profile.deviceID, atPairing: true)
                try colleague.unlocked.setTrust(.other, of: keys.profile.deviceID, atPairing: true)
            }
        }

        /// `vaultctl sync now --peer desk` on the colleague.
        @discardableResult
        func syncColleague() throws -> SyncRunReport {
            let client = try ChannelClient(connectingTo: f.server.address, localKeys: colleagueKeys, peer: f.deskKeys.profile)
            return try SyncInitiator(vault: colleague.unlocked, transport: ChannelSyncTransport(client), coordinator: nil).run()
        }

        /// A project of the desk's shared with the colleague (editor) on the desk, held by all three,
        /// then edited by the colleague and pushed to the desk.
        func sharedAndEditedByTheColleague() throws -> (WritingProject, NodeID) {
            let project = try F.project(f.desk, "Shared memo")
            let document = try F.document(f.desk, in: project, "Memo", ["Owner text.", "second"])
            try F.share(project, of: f.desk, with: colleague, role: .editor)
            #expect(try f.syncLaptop().received == 1)
            #expect(try syncColleague().received == 1)
            let colleagues = try colleague.unlocked.transaction { tx in try WritingStore(tx).project(project.id) }
            try F.edit(colleague, colleagues, document, block: 1, to: "second, by the colleague")
            #expect(try syncColleague().sent == 1)
            return (project, document)
        }
    }

    @Test func theColleaguesEditAndTheDesksLaterEditsReachTheLaptop() throws {
        let s = try Setup()
        let (project, document) = try s.sharedAndEditedByTheColleague()

        let relayed = try s.f.syncLaptop()
        #expect(relayed.received == 1 && relayed.refused == 0, "\(relayed)")
        #expect(!F.details(s.f.laptop, .syncRecordRefused, "reason").contains("accessEnded"))
        #expect(try F.texts(s.f.laptop, project.id, document) == ["Owner text.", "second, by the colleague"])
        // The owner's later words on the desk follow the colleague's record: the laptop takes them.
        try F.edit(s.f.desk, project, document, block: 0, to: "Owner on the desk, later.")
        let later = try s.f.syncLaptop()
        #expect(later.received == 1 && later.refused == 0, "\(later)")
        #expect(try F.texts(s.f.laptop, project.id, document) == ["Owner on the desk, later.", "second, by the colleague"])
        // The colleague still syncs nothing with the laptop itself: the laptop never shared the project.
        let laptops = try s.f.laptop.unlocked.transaction { tx in try WritingStore(tx).project(project.id) }
        let endpoint = try SyncEndpoint(vault: s.f.laptop.unlocked, peer: s.colleagueKeys.profile)
        let access = try s.f.laptop.unlocked.transaction { tx in try endpoint.access(to: laptops, in: SyncExchangeStore(database: tx.database)) }
        guard case .failure(let refusal) = access else {
            Issue.record("the laptop let the colleague sync a project it never shared: \(access)")
            return
        }
        #expect(refusal.code == .notShared)
    }

    /// Review 17 s9, N-s9-9: a laptop that met F19 before the upgrade to exchange-10 (whose backfill
    /// took every device its roster named, the colleague too, as granted here) stayed stuck; once
    /// migration exchange-11 keeps only what the laptop decided itself, it takes the colleague's
    /// records, and the owner's later ones built on them.
    @Test func aLaptopStuckByF19BeforeTheUpgradeTakesTheColleaguesRecordsAfterExchange11() throws {
        let exchange = SyncExchangeSchema.module
        let atExchange10 = ModuleSchema(module: exchange.module, migrations: Array(exchange.migrations.prefix { $0.name != "exchange-11" }))
        #expect(atExchange10.migrations.last?.name == "exchange-10")
        let s = try Setup(laptopModules: [WritingSchema.module, SyncSchema.module, atExchange10])
        let colleague = s.colleagueKeys.profile.deviceID
        let project = try F.project(s.f.desk, "Shared memo")
        let document = try F.document(s.f.desk, in: project, "Memo", ["Owner text.", "second"])
        try F.share(project, of: s.f.desk, with: s.colleague, role: .editor)
        #expect(try s.f.syncLaptop().received == 1)
        #expect(try s.syncColleague().received == 1)
        // What exchange-10 kept for a roster made before it: every device the roster names, at 0.
        try s.f.laptop.tamper("DELETE FROM sync_granted_here; INSERT INTO sync_granted_here (project_id, device_id, granted_at) SELECT project_id, device_id, 0 FROM sync_roster")
        let colleagues = try s.colleague.unlocked.transaction { tx in try WritingStore(tx).project(project.id) }
        try F.edit(s.colleague, colleagues, document, block: 1, to: "second, by the colleague")
        #expect(try s.syncColleague().sent == 1)
        let stuck = try s.f.syncLaptop()
        #expect(stuck.received == 0 && stuck.refused == 1, "\(stuck)")
        #expect(F.details(s.f.laptop, .syncRecordRefused, "reason") == ["accessEnded"])
        try F.edit(s.f.desk, project, document, block: 0, to: "Owner on the desk, later.")

        // The upgrade: this binary opens the laptop, its list ending with exchange-11.
        let upgraded = try Vault.open(at: s.f.laptop.directory, journal: RecordingJournal(), modules: F.modules)
            .unlock(with: .passphrase(s.f.laptop.passphrase))
        let granted = try upgraded.transaction { tx in try SyncExchangeStore(database: tx.database).grantedHere(project.id) }
        #expect(!granted.contains(colleague), "the colleague is still taken as granted on the laptop")
        #expect(granted.contains(s.f.deskKeys.profile.deviceID), "the own device whose offer made the project is no longer granted")
        let after = try SyncInitiator(vault: upgraded, transport: try s.f.transport(), coordinator: nil).run()
        #expect(after.received == 2 && after.refused == 0, "\(after)")
        let held = try upgraded.transaction { tx in try WritingStore(tx).project(project.id) }
        let texts = try upgraded.transaction { tx in try WritingStore(tx).documentContent(of: document, in: held.id).blocks.map(\.text) }
        #expect(texts == ["Owner on the desk, later.", "second, by the colleague"])
    }

    /// The laptop shared the project with the colleague too, then revoked it there: the laptop
    /// decided, so the colleague's later records stay refused on the laptop (`accessEnded`), even
    /// relayed by the desk that still grants it (the owner's devices should grant alike).
    @Test func aShareThisVaultRevokedStillEndsTheColleagueHere() throws {
        let s = try Setup()
        let project = try F.project(s.f.desk, "Shared memo")
        let document = try F.document(s.f.desk, in: project, "Memo", ["Owner text.", "second"])
        try F.share(project, of: s.f.desk, with: s.colleague, role: .editor)
        #expect(try s.f.syncLaptop().received == 1)
        #expect(try s.syncColleague().received == 1)
        let laptops = try s.f.laptop.unlocked.transaction { tx in try WritingStore(tx).project(project.id) }
        try SyncControl.shared(laptops.compartment, with: s.colleagueKeys.profile.deviceID, role: .editor, in: s.f.laptop.unlocked)
        #expect(try s.f.syncLaptop().refused == 0)
        try SyncControl.revoked(laptops.compartment, from: s.colleagueKeys.profile.deviceID, in: s.f.laptop.unlocked)

        let colleagues = try s.colleague.unlocked.transaction { tx in try WritingStore(tx).project(project.id) }
        try F.edit(s.colleague, colleagues, document, block: 1, to: "second, by the colleague")
        #expect(try s.syncColleague().sent == 1)
        let relayed = try s.f.syncLaptop()
        #expect(relayed.received == 0 && relayed.refused == 1, "\(relayed)")
        #expect(F.details(s.f.laptop, .syncRecordRefused, "reason") == ["accessEnded"])
        #expect(try F.texts(s.f.laptop, project.id, document) == ["Owner text.", "second"])
    }

    /// The desk shares the project as viewer only: the colleague's record is refused by the desk,
    /// and the desk's offer names no colleague the laptop would take on its word, so nothing of the
    /// colleague's reaches the laptop.
    @Test func aViewersWritesStayRefusedOnBothOwnDevices() throws {
        let s = try Setup()
        let project = try F.project(s.f.desk, "Shared memo")
        let document = try F.document(s.f.desk, in: project, "Memo", ["Owner text."])
        try F.share(project, of: s.f.desk, with: s.colleague, role: .viewer)
        #expect(try s.f.syncLaptop().received == 1)
        #expect(try s.syncColleague().received == 1)
        let offered = try SyncEndpoint(vault: s.f.desk.unlocked, peer: s.f.laptopKeys.profile).offers()
        #expect(offered.first { $0.project == project.id }?.roster.contains { $0.device == s.colleagueKeys.profile.deviceID } == false)
        #expect(try s.f.syncLaptop().refused == 0)
        #expect(try F.texts(s.f.laptop, project.id, document) == ["Owner text."])
        let laptopsRoster = try s.f.laptop.unlocked.transaction { tx in try SyncExchangeStore(database: tx.database).roster(of: project.id) }
        #expect(laptopsRoster[s.colleagueKeys.profile.deviceID] == nil)
    }
}
