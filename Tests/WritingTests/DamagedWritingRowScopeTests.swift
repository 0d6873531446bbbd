import CryptoVault
import Foundation
import Testing
@testable import Writing

/// A project's damaged rows are read from its own rows only (`DamagedWritingRow.rows(of:in:)`, each
/// table's `scope`), yet are exactly the rows the whole scan gives that project: the scope narrows
/// the read, never the finding. Rows of another project, and a block whose document id names no
/// node, stay out of every project's.
@Suite struct DamagedWritingRowScopeTests {
    @Test("a project's scoped scan finds exactly what the whole scan gives it, in every table, and nothing of another project")
    func theScopedScanIsTheWholeScanOfOneProject() throws {
        let fixture = try WritingFixture()
        let (first, second, whole) = (try fixture.project("First"), try fixture.project("Second"), try fixture.project("Whole"))
        for project in [first, second, whole] {
            try fixture.store { store in
                let document = try store.addNode(.scene, titled: "Draft", in: project.id)
                try store.replaceDocumentContent(of: document.id, in: project.id, with: try WritingFixture.paragraphs(["One.", "Two."]))
            }
        }
        let database = try Database(path: fixture.vault.vault.databasePath, create: false, readOnly: false)
        try database.execute("PRAGMA foreign_keys = OFF; PRAGMA ignore_check_constraints = ON")
        // A block kind no writer stores (first), a node kind of another type (second), and a damaged
        // block of a node that is no node here (nobody's).
        try database.query("""
            UPDATE writing_blocks SET kind = 'aside' WHERE rowid = (SELECT min(rowid) FROM writing_blocks
            WHERE node_id IN (SELECT id FROM writing_nodes WHERE project_id = ?))
            """, [.blob(first.id.bytes)])
        try database.query("UPDATE writing_nodes SET kind = 7 WHERE project_id = ?", [.blob(second.id.bytes)])
        try database.query("UPDATE writing_blocks SET node_id = zeroblob(16), kind = 'aside' WHERE rowid = (SELECT max(rowid) FROM writing_blocks)")

        let all = DamagedWritingRow.all(in: database)
        #expect(all.contains { $0.project == nil && $0.table == "writing_blocks" }, "\(all)")
        for project in [first, second, whole] {
            #expect(DamagedWritingRow.rows(of: project.id, in: database) == all.filter { $0.project == project.id }, "\(project.id)")
        }
        #expect(DamagedWritingRow.rows(of: first.id, in: database).map(\.table) == ["writing_blocks"])
        #expect(DamagedWritingRow.rows(of: second.id, in: database).map(\.table) == ["writing_nodes"])
        #expect(DamagedWritingRow.rows(of: whole.id, in: database).isEmpty)
    }
}
