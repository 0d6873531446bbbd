import CryptoVault
import Foundation
import Testing
import TestSupport
@testable import Writing

/// Migration `events-1` on a vault made before it (SECURITY.md §15.5): the tables before it keep
/// every row, the new table starts empty, and the next edit starts an event.
@Suite struct EditEventMigrationTests {
    @Test("a vault at versions-2 upgrades: its rows are unchanged, writing_edit_events starts empty, and an edit then records an event")
    func upgradeAddsTheTable() throws {
        let before = ModuleSchema(module: "writing", migrations: Array(WritingSchema.module.migrations.prefix { $0.name != "events-1" }))
        #expect(before.migrations.last?.name == "versions-2")
        let old = try TestVault(modules: [before])
        let project = try old.unlocked.createWritingProject(named: "Notes", register: .fiction, kind: .document)
        let content = try WritingFixture.paragraphs(["The boat came in."])
        let document = try old.unlocked.transaction { tx in
            let store = WritingStore(tx)
            let document = try store.addNode(.scene, titled: "Arrival", in: project.id)
            try WritingFixture.writeBeforeEvents(content, to: document.id, of: project, in: store)
            try store.createSnapshot(of: document.id, in: project.id, titled: "First")
            return document.id
        }
        let rows = { (vault: Vault) in
            try Database(path: vault.databasePath, create: false, readOnly: true).query("""
                SELECT 'snapshot ' || quote(id) || sequence || origin AS line FROM writing_snapshots
                UNION ALL SELECT 'block ' || quote(id) || position || kind FROM writing_blocks ORDER BY 1
                """).map { try $0.text("line") }
        }
        let stored = try rows(old.vault)
        let upgraded = try Vault.open(at: old.directory, journal: RecordingJournal(), modules: [WritingSchema.module])
            .unlock(with: .passphrase(old.passphrase))
        #expect(try rows(upgraded.vault) == stored)
        let events = try upgraded.transaction { tx in
            let store = WritingStore(tx)
            #expect(try store.editEvents(in: project.id).isEmpty)
            let edited = DocumentContent(blocks: [Block(id: content.blocks[0].id, kind: .paragraph, text: "The boat came in at dawn.")])
            try store.replaceDocumentContent(of: document, in: project.id, with: edited)
            return try store.editEvents(in: project.id)
        }
        #expect(events.map(\.documents) == [[DocumentEdit(document: document, wordDelta: 2)]])
    }
}
