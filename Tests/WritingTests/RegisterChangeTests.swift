import CryptoVault
import Foundation
import Testing
@testable import Writing

/// Issue 15: "A project's register can change later without a data migration (labels and visibility
/// only)." The change is checked against the whole vault database: after `setRegister`, every
/// table holds what it held (every sealed record, every row of the writing model, the compartments,
/// the keys), except the project's `register` column and the one audit entry that records the change.
@Suite struct RegisterChangeTests {
    /// Every row of every table, as "table: quoted columns", one line each, in rowid order.
    static func tables(_ fixture: WritingFixture) throws -> [String: [String]] {
        let database = try Database(path: fixture.vault.vault.databasePath, create: false, readOnly: true)
        var tables: [String: [String]] = [:]
        let names = try database.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        for name in try names.map({ try $0.text("name") }) {
            let columns = try database.query("SELECT name FROM pragma_table_info('\(name)') ORDER BY cid").map { try $0.text("name") }
            let line = columns.map { "'\($0)=' || quote(\"\($0)\")" }.joined(separator: " || '|' || ")
            tables[name] = try database.query("SELECT \(line) AS line FROM \"\(name)\"").map { try $0.text("line") }.sorted()
        }
        return tables
    }

    @Test("a new register changes the register column and adds its audit entry; no record is resealed, moved or removed")
    func registerChangeTouchesOnlyItsColumn() throws {
        let fixture = try WritingFixture()
        let chart = try fixture.project("Clinic", register: .healthcare, kind: .document)
        let session = try fixture.session(of: chart)
        defer { try? session.end() }
        try fixture.store(.session(session)) { store in
            let folder = try store.addNode(.chapter, titled: "Visits", in: chart.id)
            let note = try store.addNode(.scene, titled: "Intake", in: chart.id, under: folder.id)
            try store.replaceDocumentContent(of: note.id, in: chart.id, with: try WritingFixture.paragraphs(["Slept badly.", "Walks daily."]))
            let base = try store.createSnapshot(of: note.id, in: chart.id)
            _ = try store.createBranch(of: note.id, in: chart.id, base: base.id, content: try WritingFixture.paragraphs(["Slept well."]),
                                       kind: .manual, provenance: "test")
            _ = try store.addEntry(.character, named: "Dana", body: "Sister.", fields: [:], in: chart.id)
            _ = try store.createProjectSnapshot(of: chart.id)
        }
        let before = try Self.tables(fixture)
        let auditBefore = fixture.vault.recording.actions

        try fixture.store { try $0.setRegister(chart.id, .legal) }

        let after = try Self.tables(fixture)
        #expect(try fixture.store { try $0.project(chart.id) }.register == .legal)
        #expect(Set(before.keys) == Set(after.keys), "no table is made or dropped")
        let changed = Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }
        let audit = changed.filter { $0.hasPrefix("audit") }
        #expect(changed.subtracting(audit) == ["writing_projects"], "changed: \(changed.sorted())")
        #expect(before["sealed_records"] == after["sealed_records"] && !(before["sealed_records"] ?? []).isEmpty)
        // writing_projects: the same rows once each row's register is set aside.
        let withoutRegister = { (rows: [String]) in
            rows.map { $0.replacingOccurrences(of: #"register='[a-z]+'"#, with: "register=?", options: .regularExpression) }
        }
        #expect(withoutRegister(before["writing_projects"] ?? []) == withoutRegister(after["writing_projects"] ?? []))
        #expect(before["writing_projects"] != after["writing_projects"], "the register column did change")
        #expect(Array(fixture.vault.recording.actions.dropFirst(auditBefore.count)) == ["writing.project-register"])
    }
}
