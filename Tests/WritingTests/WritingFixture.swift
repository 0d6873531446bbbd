import CryptoVault
import Foundation
import PrivilegedSession
import TestSupport
@testable import Writing

/// A vault with the writing model's schema, and shortcuts for a store in one transaction.
final class WritingFixture {
    let vault: TestVault

    init() throws { vault = try TestVault(modules: [WritingSchema.module]) }

    var unlocked: UnlockedVault { vault.unlocked }

    func project(_ name: String = "Novel", register: Register = .fiction, kind: ProjectKind = .longForm) throws -> WritingProject {
        try unlocked.createWritingProject(named: name, register: register, kind: kind)
    }

    /// Runs `body` with a store in one transaction (reading with `access`, its time read from `clock`).
    func store<Result>(_ access: RecordAccess = .vault, clock: VaultClock = .system, _ body: (WritingStore) throws -> Result) throws -> Result {
        try unlocked.transaction { tx in try body(WritingStore(tx, access: access, clock: clock)) }
    }

    func session(of project: WritingProject) throws -> PrivilegedProcessingSession {
        try PrivilegedProcessingSession.start(vault: unlocked, compartment: project.compartment, actor: "dr.osei", purpose: "review")
    }

    /// Every row of the writing tables and of sealed_records, as text: equal before and after a
    /// refused call when it changed nothing.
    func storeState() throws -> [String] {
        let database = try Database(path: vault.vault.databasePath, create: false, readOnly: true)
        var lines: [String] = []
        let columns = [
            "writing_projects": "hex(id), hex(compartment_uuid), register, kind, created_at, archived_at",
            "writing_nodes": "hex(id), hex(project_id), hex(parent_id), kind, order_key, created_at",
            "writing_blocks": "hex(id), hex(node_id), position, kind",
            "writing_entries": "hex(id), hex(project_id), kind, order_key, created_at",
            "writing_snapshots": "hex(id), hex(project_id), hex(node_id), sequence, form, origin, parts, hex(device_id), created_at",
            "writing_branches": "hex(id), hex(project_id), hex(node_id), hex(base_snapshot_id), kind, state, parts, created_at, decided_at, hex(before_snapshot_id), hex(adopted_snapshot_id)",
            "writing_edit_events": "hex(id), hex(project_id), hex(device_id), started_at, last_edit_at, ended_at, edits",
            "writing_project_snapshots": "hex(id), hex(project_id), sequence, origin, parts, hex(device_id), created_at",
            "sealed_records": "id, table_name, hex(record_id), field, hex(sealed)",
        ]
        for (table, list) in columns.sorted(by: { $0.key < $1.key }) {
            let sql = "SELECT quote(\(list.replacingOccurrences(of: ", ", with: ") || '|' || quote("))) AS line FROM \(table) ORDER BY rowid"
            for row in try database.query(sql) { lines.append("\(table): \(try row.text("line"))") }
        }
        return lines
    }

    /// Writes `content` as a document's first content the way the store did before migration
    /// `events-1` (rows and sealed blocks, no edit event): a vault made at an older schema has no
    /// writing_edit_events table for today's `replaceDocumentContent` to merge into.
    static func writeBeforeEvents(_ content: DocumentContent, to document: NodeID, of project: WritingProject, in store: WritingStore) throws {
        for (position, block) in content.blocks.enumerated() {
            try store.blockTable.insert(BlockTable.Row(id: block.id, position: position, kind: BlockEncoding.name(of: block.kind)), in: document)
            try store.seal(BlockEncoding.encode(block), at: try WritingRecord.block(block.id), of: project)
        }
    }

    static func paragraphs(_ texts: [String]) throws -> DocumentContent {
        DocumentContent(blocks: try texts.map { Block(id: try BlockID.random(), kind: .paragraph, text: $0) })
    }
}
