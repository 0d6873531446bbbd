import Foundation
@testable import Sync
import Testing
import TestSupport
@testable import Writing

/// An honest merge that meets more conflicts than one record holds (review 17's F12): every
/// conflict a commit makes durable (0x03, each carrying both sides' text) is cut into records like
/// any operation, so no record the device makes is one the codec would refuse, the peer takes
/// them all, both devices converge, and a rebuild of either replica reads every stored record.
@Suite(.serialized) struct BigMergeTests {
    typealias F = SyncExchangeFixture

    static func replace(_ vault: TestVault, _ project: WritingProject, _ document: NodeID, _ name: String, by other: String) throws {
        try F.store(vault, project) { store in
            var content = try store.documentContent(of: document, in: project.id)
            for index in content.blocks.indices { content.blocks[index].text = content.blocks[index].text.replacingOccurrences(of: name, with: other) }
            try store.replaceDocumentContent(of: document, in: project.id, with: content)
        }
    }

    /// The project's records stored in `vault`, parsed.
    static func records(_ vault: TestVault, _ projectID: ProjectID) throws -> [ChangeRecord] {
        try vault.unlocked.transaction { tx in
            let store = WritingStore(tx)
            let project = try store.project(projectID)
            return try VaultSync(store, author: SyncAuthor.random(), devices: [:]).storedRecords(of: project).map { try ChangeRecordCodec.parse($0.bytes) }
        }
    }

    /// The bytes of the sealed values of `document`'s branches in `vault` (every part, opened), and the branches.
    static func branchBytes(_ vault: TestVault, _ projectID: ProjectID, _ document: NodeID) throws -> (bytes: Int, branches: Int) {
        try vault.unlocked.transaction { tx in
            let store = WritingStore(tx)
            let project = try store.project(projectID)
            let rows = try store.branchTable.all(of: document)
            let locations = try rows.flatMap { row in try (0..<row.parts).map { try WritingRecord.branchPart(row.id, $0) } }
            return (try store.open(locations, of: project) { _, plaintext in plaintext.count }.reduce(0, +), rows.count)
        }
    }

    @Test func aFindAndReplaceOnTwoOfflineDevicesWithMoreConflictsThanARecordHoldsSyncsAndConverges() throws {
        let f = try F()
        let project = try F.project(f.laptop, "Long book")
        // 170 paragraphs of about 7 KB, each naming Jon once: two text conflicts each, both sides'
        // text in every one, about 4.8 MB of conflicts: more than one record holds.
        let filler = String(repeating: "lorem ipsum dolor sit amet ", count: 260)
        let document = try F.document(f.laptop, in: project, "Book", (0..<170).map { "Part \($0): Jon went out. " + filler })
        try f.syncLaptop()
        let deskProject = try f.desk.unlocked.transaction { tx in try WritingStore(tx).project(project.id) }
        try Self.replace(f.laptop, project, document, "Jon", by: "Mark")
        try Self.replace(f.desk, deskProject, document, "Jon", by: "Luke")

        for _ in 0..<2 {
            let report = try f.syncLaptop()
            #expect(report.refused == 0 && report.projects.allSatisfy { $0.skipped == nil && $0.localOnly == nil }, "\(report)")
        }
        let laptopTexts = try F.texts(f.laptop, project.id, document)
        #expect(laptopTexts == (try F.texts(f.desk, project.id, document)))
        #expect(laptopTexts.count == 170)
        // The conflicts travelled in several records, each within the codec's bounds.
        let laptopAuthor = f.laptopKeys.profile.deviceID
        let stored = try Self.records(f.laptop, project.id)
        let carrying = stored.filter { record in record.device == laptopAuthor && record.operations.contains { if case .conflict = $0 { true } else { false } } }
        let conflicts = carrying.reduce(0) { total, record in total + record.operations.filter { if case .conflict = $0 { true } else { false } }.count }
        #expect(carrying.count > 1 && conflicts >= 170, "\(carrying.count) records, \(conflicts) conflicts")
        // Each conflict's branch holds its one block against one shared base (SECURITY.md §15.3,
        // record version 2), with a header and the delta's copies of under 256 bytes: at most a
        // branch per side of each of the 170 paragraphs, so at most twice the book, not a whole
        // copy of it per branch (about 400 MB before).
        let book = try F.store(f.laptop, project) { store in SnapshotContent.encode(try store.documentContent(of: document, in: project.id)).count }
        for vault in [f.laptop, f.desk] {
            let (bytes, branches) = try Self.branchBytes(vault, project.id, document)
            #expect(branches >= 170 && bytes <= 2 * book + branches * 256, "\(branches) branches of \(bytes) bytes, the document \(book)")
        }
        #expect(stored.allSatisfy { $0.encoded.count <= ChangeRecordCodec.maximumSize && $0.operations.count <= ChangeRecordCodec.maximumOperations })
        #expect(try Self.records(f.desk, project.id).count == stored.count)
        // A rebuild from the stored records alone (what a new process does) reads every one, on both.
        for vault in [f.laptop, f.desk] {
            let state = try SyncStatus.projects(vault.unlocked).first { $0.project == project.id }?.state
            #expect(state == .ready(records: stored.count), "\(String(describing: state))")
        }
    }
}
