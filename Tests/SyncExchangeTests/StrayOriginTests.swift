import CryptoVault
import PeerChannel
@testable import Sync
import Testing
import TestSupport
import Writing

/// One byte of `sync_origins.project_id` (review 17 s12, N-s12-6): the row still held an id of 16
/// bytes, so no check saw it, and the project someone else's device shared with this vault looked
/// like the owner's own: `vaultctl share` of it to a third device succeeded and the third device took
/// the offer. Now such a row (and one of `sync_project_sources`) naming no project here is damaged
/// sync state, whose it is cannot be told (sync off until `vaultctl repair`, which drops it and puts
/// the origin back from the audit log); and whatever `sync_origins` says, a project made here from
/// the offer of someone else's device that granted this vault its compartment (the vault core keeps
/// the grant) is neither shared on nor offered to a third device. The desk is the colleague here:
/// desk and laptop trust each other `other`.
@Suite(.serialized) struct StrayOriginTests {
    typealias F = SyncExchangeFixture

    /// The desk's project "Case", shared with the laptop as viewer and synced there.
    static func shared() throws -> (F, WritingProject, WritingProject) {
        let f = try F(deskTrusts: .other, laptopTrusts: .other)
        let project = try F.project(f.desk, "Case")
        _ = try F.document(f.desk, in: project, "Notes", ["Colleague confidential words."])
        try F.share(project, of: f.desk, with: f.laptop, role: .viewer)
        try f.syncLaptop()
        let held = try f.laptop.unlocked.transaction { tx in try WritingStore(tx).project(project.id) }
        try #require(held.isViewOnly)
        return (f, project, held)
    }

    /// The last byte of the table's project id made 00 or FF, with a connection of its own (what a
    /// flipped byte on disk leaves): still 16 bytes, naming no project now.
    static func flip(_ table: String, of project: ProjectID, in vault: TestVault) throws {
        try vault.tamper("""
            UPDATE \(table) SET project_id = CAST(substr(project_id, 1, 15) || CASE WHEN substr(project_id, 16, 1) = X'00' THEN X'FF' ELSE X'00' END AS BLOB)
            WHERE project_id = X'\(project.hex)'
            """)
        let found = try vault.unlocked.transaction { tx in
            try tx.database.queryOne("SELECT count(*) AS rows FROM \(table) WHERE typeof(project_id) = 'blob' AND length(project_id) = 16 AND project_id != ?",
                                     [.blob(project.bytes)])?.integer("rows")
        }
        try #require(found == 1)
    }

    /// A device of someone else's paired with the laptop, which the laptop's share rows name for the
    /// project (a share recorded while the origin row was damaged, or before only owners shared).
    static func third(pairedWith f: F, sharing held: WritingProject) throws -> DeviceProfile {
        let other = try TestVault(modules: F.modules)
        let profile = try other.unlocked.deviceKeys(named: "third").profile
        try f.laptop.unlocked.storePairing(FamilyPairing(peer: profile, role: .host, pairedAt: 1))
        try f.laptop.unlocked.setTrust(.other, of: profile.deviceID, atPairing: true)
        try f.laptop.unlocked.transaction { tx in
            try SyncExchangeStore(database: tx.database).setShare(of: held.compartment.id, with: profile.deviceID, role: .viewer, at: 1)
        }
        return profile
    }

    static func refusals(_ vault: TestVault, _ action: AuditAction) -> [[String: String]] {
        vault.recording.events.withLock { events in
            events.filter { $0.action == action }.map { Dictionary($0.details.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a }) }
        }
    }

    @Test func anOriginRowNamingNoProjectIsDamageAndTheColleaguesProjectIsNeitherSharedOnNorOffered() throws {
        let (f, project, held) = try Self.shared()
        try Self.flip("sync_origins", of: project.id, in: f.laptop)
        let colleague = f.deskKeys.profile.deviceID

        // Damage whose project cannot be told: sync is off, saying which table and why.
        let damage = try f.laptop.unlocked.transaction { tx in SyncExchangeHealth.damage(in: tx) }
        #expect(damage.whole?.contains("the table sync_origins holds 1 row(s) naming no project here") == true, "\(damage)")
        #expect(throws: SyncError(.damagedSyncState, "")) { try f.syncLaptop() }

        // `vaultctl share` of the colleague's project on to another device: refused, as the vault
        // core keeps its grant, saying so and what mends the rest; recorded with the owner.
        let stranger = try DeviceID.random()
        let refusal = try #require(throws: SyncExchangeError.self) {
            try SyncControl.shared(held.compartment, with: stranger, role: .viewer, in: f.laptop.unlocked)
        }
        #expect(refusal.code == .notOwner)
        #expect(refusal.message.contains("was shared with this vault by device \(colleague.fingerprint)"), "\(refusal.message)")
        #expect(refusal.message.contains("keeps its grant") && refusal.message.contains("damaged or gone: 'vaultctl repair' mends a damaged one"),
                "\(refusal.message)")
        let refusedShare = try #require(Self.refusals(f.laptop, .shareRefused).last)
        #expect(refusedShare["reason"] == "notOwner" && refusedShare["origin"] == colleague.hex && refusedShare["device"] == stranger.hex, "\(refusedShare)")

        // The offer path to a third device the laptop's share rows name: not offered, recorded.
        let third = try Self.third(pairedWith: f, sharing: held)
        let offers = try SyncEndpoint(vault: f.laptop.unlocked, peer: third).offers()
        #expect(!offers.contains { $0.project == project.id }, "\(offers)")
        let refusedOffer = try #require(Self.refusals(f.laptop, .syncExchangeRefused).last)
        #expect(refusedOffer["reason"] == "notOwner" && refusedOffer["project"] == project.id.hex && refusedOffer["origin"] == colleague.hex,
                "\(refusedOffer)")

        // `vaultctl repair` drops the row and puts the origin back from the audit log.
        let history = SyncOriginHistory(events: f.laptop.recording.events.withLock { $0 })
        let mend = try f.laptop.unlocked.transaction { tx in try SyncExchangeHealth.mend(in: tx, origins: history) }
        #expect(mend.dropped == ["sync_origins": 1] && mend.originsRestored == [project.id], "\(mend)")
        let origin = try f.laptop.unlocked.transaction { tx in try SyncExchangeStore(database: tx.database).origin(of: project.id) }
        #expect(origin?.device == colleague && origin?.access == .viewer)
        #expect(try f.laptop.unlocked.transaction { tx in SyncExchangeHealth.damage(in: tx) } == SyncExchangeDamage())
        #expect(try f.syncLaptop().projects.allSatisfy { $0.localOnly == nil && $0.skipped == nil })
    }

    @Test func aSourceRowNamingNoProjectIsDamageAndRepairDropsIt() throws {
        let (f, project, held) = try Self.shared()
        try Self.flip("sync_project_sources", of: project.id, in: f.laptop)
        let damage = try f.laptop.unlocked.transaction { tx in SyncExchangeHealth.damage(in: tx) }
        #expect(damage.whole?.contains("the table sync_project_sources holds 1 row(s) naming no project here") == true, "\(damage)")
        let status = try SyncStatus.projects(f.laptop.unlocked)
        #expect(status.count == 1 && status.allSatisfy { if case .localOnly(let why) = $0.state { why.contains("sync_project_sources") } else { false } },
                "\(status)")

        let history = SyncOriginHistory(events: f.laptop.recording.events.withLock { $0 })
        let mend = try f.laptop.unlocked.transaction { tx in try SyncExchangeHealth.mend(in: tx, origins: history) }
        #expect(mend.dropped == ["sync_project_sources": 1], "\(mend)")
        // Where the project was made from is then the audit log's to say (`ProjectProvenance`); its
        // origin row, whole, still says whose it is.
        #expect(try f.laptop.unlocked.transaction { tx in try SyncExchangeStore(database: tx.database).source(of: project.id) } == nil)
        #expect(try f.laptop.unlocked.transaction { tx in SyncExchangeHealth.damage(in: tx) } == SyncExchangeDamage())
        #expect(throws: SyncExchangeError(.notOwner, "")) {
            try SyncControl.shared(held.compartment, with: try DeviceID.random(), role: .viewer, in: f.laptop.unlocked)
        }
    }

    /// The origin row deleted whole is no damage anything sees (nothing says it was there), but the
    /// vault core's grant still says whose the project is: not shared on, not offered.
    @Test func anOriginRowDeletedWholeStillLeavesTheProjectTheColleagues() throws {
        let (f, project, held) = try Self.shared()
        try f.laptop.tamper("DELETE FROM sync_origins")
        #expect(try f.laptop.unlocked.transaction { tx in SyncExchangeHealth.damage(in: tx) } == SyncExchangeDamage())
        let refusal = try #require(throws: SyncExchangeError.self) {
            try SyncControl.shared(held.compartment, with: try DeviceID.random(), role: .editor, in: f.laptop.unlocked)
        }
        #expect(refusal.code == .notOwner && refusal.message.contains("damaged or gone"), "\(refusal.message)")
        let third = try Self.third(pairedWith: f, sharing: held)
        #expect(try !SyncEndpoint(vault: f.laptop.unlocked, peer: third).offers().contains { $0.project == project.id })
    }

    /// A grant alone says nothing of whose a project is: a colleague's grant of a compartment named as
    /// the owner's own project (made here) does not stop the owner sharing it.
    @Test func aColleaguesGrantNamedAsTheOwnersProjectDoesNotMakeItTheirs() throws {
        let f = try F(deskTrusts: .other, laptopTrusts: .other)
        let own = try F.project(f.laptop, "Mine")
        let named = try f.desk.unlocked.transaction { tx in
            try tx.createCompartment(named: "project \(own.id.hex) (synced)", register: .general, privileged: false)
        }
        _ = try f.laptop.unlocked.acceptShareGrant(try f.desk.unlocked.makeShareGrant(of: named, for: f.laptopKeys.profile, role: .viewer))
        #expect(try f.laptop.unlocked.sharedCompartments().contains { $0.name == "project \(own.id.hex) (synced)" })
        try SyncControl.shared(own.compartment, with: f.deskKeys.profile.deviceID, role: .viewer, in: f.laptop.unlocked)
        #expect(Self.refusals(f.laptop, .shareRefused).isEmpty)
    }
}
