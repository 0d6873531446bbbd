import Foundation
import Testing
import TestSupport
@testable import Writing

/// The writing model's tables each have one owner type (STYLE.md; OwnedSQLGuardTests does the same
/// for CryptoVault's): SQL naming a `writing_` table appears only in its owner's file and in the
/// schema that makes it.
@Suite struct WritingOwnedSQLTests {
    static let owners: [String: String] = [
        "writing_projects": "Writing/Store/ProjectTable.swift",
        "writing_nodes": "Writing/Store/NodeTable.swift",
        "writing_blocks": "Writing/Store/BlockTable.swift",
        "writing_entries": "Writing/Store/EntryTable.swift",
        "writing_snapshots": "Writing/Store/SnapshotTable.swift",
        "writing_branches": "Writing/Store/BranchTable.swift",
        "writing_edit_events": "Writing/Events/EditEventTable.swift",
        "writing_project_snapshots": "Writing/Versions/ProjectSnapshotTable.swift",
        "writing_auto_snapshots": "Writing/Versions/AutoSnapshotTable.swift",
        "writing_ordinary_fingerprints": "Writing/Store/OrdinaryFingerprintTable.swift",
    ]
    static let schemaFile = "Writing/Store/WritingSchema.swift"

    static func tables() throws -> Set<String> {
        let create = try NSRegularExpression(pattern: #"CREATE TABLE (writing_\w+)"#)
        return Set(WritingSchema.module.migrations.flatMap { migration in
            create.matches(in: migration.sql, range: NSRange(migration.sql.startIndex..., in: migration.sql)).compactMap {
                Range($0.range(at: 1), in: migration.sql).map { String(migration.sql[$0]) }
            }
        })
    }

    @Test("every writing table has an owner, and SQL naming it is only in the owner's file")
    func tablesAreTouchedOnlyByTheirOwners() throws {
        let tables = try Self.tables()
        #expect(tables.isSuperset(of: Self.owners.keys), "the guard sees the tables")
        for table in tables.sorted() {
            let owner = Self.owners[table]
            #expect(owner != nil, "add \(table)'s owner to WritingOwnedSQLTests.owners")
            let reach = try NSRegularExpression(pattern: #"\b(FROM|INTO|UPDATE|JOIN|TABLE)\s+"# + table + #"\b"#)
            let files = try PackageFiles.swiftSources().filter { file in
                reach.firstMatch(in: file.text, range: NSRange(file.text.startIndex..., in: file.text)) != nil
            }.map { String($0.path.dropFirst("Sources/".count)) }
            #expect(Set(files).subtracting([Self.schemaFile] + (owner.map { [$0] } ?? [])).sorted() == [], "\(table) reached outside its owner")
            if let owner { #expect(files.contains(owner), "\(owner) names \(table)") }
        }
    }
}
