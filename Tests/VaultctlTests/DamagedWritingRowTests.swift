import CryptoVault
import Foundation
import Testing
import TestSupport
import Writing

/// One damaged row of a writing table other than `writing_projects` (reviewer15's R15-1, R15-4).
/// Past a CHECK (a node's kind, a block's position, a snapshot's form, an edit event's count, the
/// automatic-snapshot marker's flag) it sent the whole store to the in-memory mode: `project list`
/// empty with exit 0, every other project's `doc show` exit 66, `backup` exit 65, and `repair`
/// "nothing to mend". Past no CHECK (a block kind no writer stores, a time that is text) the project
/// failed with an error naming nothing, and `repair` had nothing to say. Now such a row is that
/// project's damage alone: the other project lists, shows and backs up, the damaged one's commands
/// are refused naming it, the table and `vaultctl repair` (exit 65), every command warns once, and
/// `repair` mends what the audit log or the document says, drops a row that holds no words, and
/// says what it cannot mend.
@Suite(.serialized)
struct DamagedWritingRowTests {
    enum Damage: String, CaseIterable, Sendable {
        case nodeKind, nodeCreatedAt, blockPosition, blockKind, snapshotForm, editEventEdits, projectSnapshotParts, autoSnapshotReceived

        var table: String {
            switch self {
            case .nodeKind, .nodeCreatedAt: "writing_nodes"
            case .blockPosition, .blockKind: "writing_blocks"
            case .snapshotForm: "writing_snapshots"
            case .editEventEdits: "writing_edit_events"
            case .projectSnapshotParts: "writing_project_snapshots"
            case .autoSnapshotReceived: "writing_auto_snapshots"
            }
        }

        /// What `repair` says it did with the row.
        var repaired: String {
            switch self {
            case .nodeKind, .nodeCreatedAt, .blockPosition, .blockKind: "Mended a row of \(table) of project"
            case .editEventEdits, .autoSnapshotReceived: "Dropped a damaged row of \(table) of project"
            case .snapshotForm, .projectSnapshotParts: "Could not mend a row of \(table) of project"
            }
        }

        var isMended: Bool { !repaired.hasPrefix("Could not") }

        /// Project `a`'s row damaged with sqlite as one flipped bit (or a value of another type) would.
        func damage(_ a: String, in vault: CLIVault) throws {
            let database = try Database(path: vault.directory + "/vault.db", create: false, readOnly: false)
            let project = "project_id = X'\(a)'"
            let draft = "node_id = (SELECT id FROM writing_nodes WHERE \(project) AND kind = 'scene')"
            let sql = switch self {
            case .nodeKind: "UPDATE writing_nodes SET kind = 'rcene' WHERE \(project) AND kind = 'scene'"
            case .nodeCreatedAt: "UPDATE writing_nodes SET created_at = 'x' WHERE \(project)"
            case .blockPosition: "UPDATE writing_blocks SET position = -1 WHERE \(draft) AND position = 1"
            case .blockKind: "UPDATE writing_blocks SET kind = 'qaragraph' WHERE \(draft) AND position = 1"
            case .snapshotForm: "UPDATE writing_snapshots SET form = 'grouq' WHERE \(project) AND sequence = 1"
            case .editEventEdits: "UPDATE writing_edit_events SET edits = 0 WHERE \(project)"
            case .projectSnapshotParts: "UPDATE writing_project_snapshots SET parts = 0 WHERE \(project)"
            case .autoSnapshotReceived: "UPDATE writing_auto_snapshots SET received = 2 WHERE \(project)"
            }
            try database.execute("PRAGMA ignore_check_constraints = ON; \(sql)")
            #expect(database.changes > 0, "\(self): the damage changed no row")
        }
    }

    /// Two projects, Alpha then Beta, each with a document "Draft" of two paragraphs written twice, a
    /// titled version and a project snapshot; and Alpha's id.
    static func twoProjects() throws -> (CLIVault, String) {
        let vault = try CLIVault()
        for name in ["Alpha", "Beta"] {
            #expect(try vault.run(["project", "create", name, "--register", "general"]).status == 0)
            #expect(try vault.run(["doc", "add", name, "Draft"]).status == 0)
            #expect(try vault.run(["doc", "write", name, "Draft"], stdin: "Words of \(name) first.\n\nSecond para zebra.\n").status == 0)
            #expect(try vault.run(["snapshot", "create", name, "Draft", "--title", "First"]).status == 0)
            #expect(try vault.run(["doc", "write", name, "Draft"], stdin: "Words of \(name) first.\n\nSecond para zebra changed.\n").status == 0)
            #expect(try vault.run(["project", "snapshot", name, "--title", "PS1"]).status == 0)
        }
        let listed = try DamagedProjectRowTests.rows(try vault.run(["project", "list", "--json"]))
        return (vault, try #require(listed.first?["id"] as? String))
    }

    @Test(arguments: Damage.allCases)
    func aDamagedRowIsItsProjectsAloneAndRepairMendsOrNamesIt(_ damage: Damage) throws {
        let (vault, alpha) = try Self.twoProjects()
        try damage.damage(alpha, in: vault)
        let named = "project \(alpha.lowercased()) is damaged"

        // The other project lists, shows and backs up; every command warns once, naming the damage.
        let listed = try vault.run(["project", "list"])
        #expect(listed.status == 0 && listed.stdout.contains("Beta") && !listed.stderr.contains("in-memory mode"),
                "\(damage): \(listed.status) \(listed.stdout) \(listed.stderr)")
        #expect(listed.stderr.components(separatedBy: named).count == 2 && listed.stderr.contains(damage.table)
                && listed.stderr.contains("'vaultctl repair' mends it"), "\(damage): \(listed.stderr)")
        let beta = try vault.run(["doc", "show", "Beta", "Draft"])
        #expect(beta.status == 0 && beta.stdout.contains("Words of Beta first."), "\(damage): \(beta.status) \(beta.stderr)")
        let status = try vault.run(["sync", "status"])
        #expect(status.status == 0 && status.stdout.contains("project \(alpha.lowercased()): LOCAL-ONLY: \(named)")
                && status.stdout.contains(damage.table), "\(damage): \(status.stdout) \(status.stderr)")
        let backup = try vault.run(["backup", "-o", vault.root + "/backup-\(damage.rawValue)"])
        #expect(backup.status == 0, "\(damage): \(backup.status) \(backup.stderr)")

        // The damaged project is refused, naming itself, the table and what mends it; never a word of it.
        let shown = try vault.run(["doc", "show", "Alpha", "Draft"])
        #expect(shown.status == 65 && shown.stderr.contains("error: \(named)") && shown.stderr.contains(damage.table)
                && shown.stderr.contains("'vaultctl repair'") && !shown.stdout.contains("Words of Alpha"),
                "\(damage): \(shown.status) \(shown.stdout) \(shown.stderr)")

        // `repair` mends it from what says it elsewhere, drops a row that held no words, or says it cannot.
        let repaired = try vault.run(["repair"])
        #expect(repaired.status == 0 && repaired.stdout.contains("\(damage.repaired) \(alpha.lowercased())")
                && !repaired.stdout.contains("nothing to mend"), "\(damage): \(repaired.status) \(repaired.stdout) \(repaired.stderr)")
        let after = try vault.run(["doc", "show", "Alpha", "Draft"])
        if damage.isMended {
            #expect(after.status == 0 && after.stdout.contains("Words of Alpha first.") && after.stdout.contains("zebra changed")
                    && !after.stderr.contains("is damaged"), "\(damage): \(after.status) \(after.stderr)")
            let log = try vault.run(["audit", "log", "--json", "--details", "--action", "writing.row-mended"])
            #expect(log.stdout.contains(damage.table), "\(damage): \(log.stdout)")
        } else {
            #expect(after.status == 65 && after.stderr.contains(named), "\(damage): \(after.status) \(after.stderr)")
        }
        #expect(try vault.run(["audit", "verify"], unlock: false).status == 0)
    }
}
