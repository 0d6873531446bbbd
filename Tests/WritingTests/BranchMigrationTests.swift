import CryptoVault
import Foundation
import Testing
import TestSupport
@testable import Writing

/// Migration `versions-2` on a vault made before it (SECURITY.md §15.3): the rebuilt
/// writing_snapshots keeps every row as it was, so versions taken before still read back, and the
/// new origins and branches work after.
@Suite struct BranchMigrationTests {
    @Test("a vault at versions-1 upgrades: its snapshots' rows are unchanged and read back, and a branch can then be adopted")
    func upgradeKeepsSnapshots() throws {
        let before = ModuleSchema(module: "writing", migrations: Array(WritingSchema.module.migrations.prefix { $0.name != "versions-2" }))
        let old = try TestVault(modules: [before])
        let project = try old.unlocked.createWritingProject(named: "Notes", register: .fiction, kind: .document)
        let content = try WritingFixture.paragraphs(["The boat came in.", "Grey."])
        let (document, snapshot) = try old.unlocked.transaction { tx in
            let store = WritingStore(tx)
            let document = try store.addNode(.scene, titled: "Arrival", in: project.id)
            try WritingFixture.writeBeforeEvents(content, to: document.id, of: project, in: store)
            return (document, try store.createSnapshot(of: document.id, in: project.id, titled: "First"))
        }
        let rows = { (vault: Vault) in
            try Database(path: vault.databasePath, create: false, readOnly: true).query("SELECT quote(id) || quote(node_id) || sequence || form || origin || parts || quote(device_id) || created_at AS line FROM writing_snapshots")
                .map { try $0.text("line") }
        }
        let stored = try rows(old.vault)
        let upgraded = try Vault.open(at: old.directory, journal: RecordingJournal(), modules: [WritingSchema.module])
            .unlock(with: .passphrase(old.passphrase))
        #expect(try rows(upgraded.vault) == stored)
        let proposal = Block(id: content.blocks[1].id, kind: .paragraph, text: "Grey and late.")
        let adopted = try upgraded.transaction { tx in
            let store = WritingStore(tx)
            #expect(SnapshotContent.encode(try store.snapshotContent(snapshot.id, of: document.id, in: project.id)) == SnapshotContent.encode(content))
            let branch = try store.createBranch(of: document.id, in: project.id, base: snapshot.id,
                                                content: DocumentContent(blocks: [content.blocks[0], proposal]), kind: .manual, provenance: "me")
            return try store.adopt(branch.id, of: document.id, in: project.id)
        }
        #expect(adopted.origin == .adopt && adopted.sequence == 2)
    }

    @Test("a vault at versions-3 upgrades to versions-4: its snapshots and the branches that refer to them are kept, and a discard is then a version")
    func discardUpgradeKeepsSnapshotsAndBranches() throws {
        let before = ModuleSchema(module: "writing", migrations: Array(WritingSchema.module.migrations.prefix { $0.name != "versions-4" }))
        #expect(before.migrations.last?.name == "versions-3")
        let old = try TestVault(modules: [before])
        let project = try old.unlocked.createWritingProject(named: "Notes", register: .fiction, kind: .document)
        let content = try WritingFixture.paragraphs(["The boat came in.", "Grey."])
        let (document, branches) = try old.unlocked.transaction { tx in
            let store = WritingStore(tx)
            let document = try store.addNode(.scene, titled: "Arrival", in: project.id)
            try store.replaceDocumentContent(of: document.id, in: project.id, with: content)
            let base = try store.createSnapshot(of: document.id, in: project.id)
            let proposal = { (text: String) in DocumentContent(blocks: [content.blocks[0], Block(id: content.blocks[1].id, kind: .paragraph, text: text)]) }
            // Adopted whole (new blocks), so its version is a keyframe: a vault at versions-3 holds no groups (versions-6).
            let rewritten = DocumentContent(blocks: [Block(id: try BlockID.random(), kind: .paragraph, text: "Fog."),
                                                     Block(id: try BlockID.random(), kind: .paragraph, text: "Late.")])
            let adopted = try store.createBranch(of: document.id, in: project.id, base: base.id, content: rewritten, kind: .manual, provenance: "me")
            try store.adopt(adopted.id, of: document.id, in: project.id)
            let open = try store.createBranch(of: document.id, in: project.id, base: base.id, content: proposal("Blue."), kind: .aiSuggestion, provenance: "lane")
            return (document, [adopted, open])
        }
        let dump = { (vault: Vault, table: String, columns: String) in
            try Database(path: vault.databasePath, create: false, readOnly: true).query("SELECT \(columns) AS line FROM \(table) ORDER BY rowid")
                .map { try $0.text("line") }
        }
        let snapshotColumns = "quote(id) || quote(node_id) || sequence || form || origin || parts || quote(device_id) || created_at"
        let branchColumns = "quote(id) || quote(base_snapshot_id) || state || quote(before_snapshot_id) || quote(adopted_snapshot_id)"
        let (snapshots, branchRows) = (try dump(old.vault, "writing_snapshots", snapshotColumns), try dump(old.vault, "writing_branches", branchColumns))
        let upgraded = try Vault.open(at: old.directory, journal: RecordingJournal(), modules: [WritingSchema.module])
            .unlock(with: .passphrase(old.passphrase))
        #expect(try dump(upgraded.vault, "writing_snapshots", snapshotColumns) == snapshots)
        #expect(try dump(upgraded.vault, "writing_branches", branchColumns) == branchRows)
        let database = try Database(path: upgraded.vault.databasePath, create: false, readOnly: true)
        #expect(try database.query("PRAGMA foreign_key_check").isEmpty)
        let discarded = try upgraded.transaction { tx in try WritingStore(tx).discard(branches[1].id, of: document.id, in: project.id) }
        #expect(discarded.origin == .discard && discarded.sequence == 3)
        // The foreign keys still hold after the rebuild: a branch cannot name a snapshot that is not there.
        #expect(throws: (any Error).self) {
            try upgraded.transaction { tx in
                try tx.database.query("UPDATE writing_branches SET base_snapshot_id = ? WHERE id = ?",
                                      [.blob([UInt8](repeating: 7, count: 16)), .blob(branches[1].id.bytes)])
            }
        }
    }
}
