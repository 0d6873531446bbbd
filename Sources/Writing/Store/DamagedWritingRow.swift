import CryptoVault
import Registers

/// A row of a writing table other than `writing_projects` (the binder, blocks, entries, versions,
/// edit events, the automatic-snapshot marker) holding a value no writer stores: a clear column
/// past its CHECK or NOT NULL (one flipped bit of a kind, a position, a count), of another type (a
/// time that is text), or a block kind this build does not know (reviewer15's R15-1, R15-4).
///
/// Attributed to a project (by its `project_id`, or a block by its document's), it is that
/// project's damage alone (SECURITY.md §14.2, §19.10): the store is not sent to the in-memory mode,
/// the other projects list, show, back up and sync as ever, the project's commands are refused
/// naming it, the table and `vaultctl repair` (exit 65), every unlocking command warns once, and
/// `vaultctl repair` mends what it can (`WritingRowMend`). A row that names no project here (its
/// project or document id damaged or naming nothing: the id helper's part) cannot be anyone's, so
/// it stays the whole store's damage, as before: the in-memory mode until `repair --from`.
public struct DamagedWritingRow: Sendable, Equatable {
    public let table: String
    public let rowid: Int64
    /// The project the row is of; nil when it names none here.
    public let project: ProjectID?
    /// The columns that hold what no writer stores, in the table's order.
    public let columns: [String]

    /// One table's rule: for each column, SQL that is true when a writer could have stored it (by
    /// `typeof`, so a value of another type never passes as one it resembles), and the SQL that
    /// gives the row's project.
    struct Rule {
        let table: String
        let columns: [(name: String, whole: String)]
        let owner: String
        /// What the table keeps, for messages.
        let words: String
        /// SQL true for every row `owner` could give project `?` (bound to its id): narrows a
        /// project's scan to its own rows, by an index where the table has one.
        var scope = "project_id = ?"
    }

    private static func blob(_ column: String) -> String { "(typeof(\(column)) = 'blob' AND length(\(column)) = 16)" }
    private static func integer(_ column: String, atLeast floor: Int? = nil) -> String {
        "(typeof(\(column)) = 'integer'\(floor.map { " AND \(column) >= \($0)" } ?? ""))"
    }
    private static func optional(_ whole: String, _ column: String) -> String { "(\(column) IS NULL OR \(whole))" }
    private static func oneOf(_ column: String, _ values: [String]) -> String {
        "(typeof(\(column)) = 'text' AND \(column) IN (\(values.map { "'\($0)'" }.joined(separator: ", "))))"
    }
    /// The row's project id when it is whole and names a project row here.
    private static func owned(by column: String) -> String {
        "CASE WHEN \(blob(column)) AND \(ProjectTable.holds(column)) THEN \(column) END"
    }

    /// Every block kind this build writes (`BlockEncoding.name(of:)`).
    static let blockKinds = ["paragraph", "list-item", "quote", "table"] + (1...6).map { "heading-\($0)" }
        + FieldSlot.allCases.map { "field-\($0.rawValue)" }

    /// The tables, each as its migrations and writers make it (SECURITY.md §14.2, §15).
    static let rules: [Rule] = [
        Rule(table: "writing_nodes", columns: [
            ("id", blob("id")), ("project_id", blob("project_id")), ("parent_id", optional(blob("parent_id"), "parent_id")),
            ("kind", oneOf("kind", ["chapter", "scene"])), ("order_key", "(typeof(order_key) = 'text')"), ("created_at", integer("created_at")),
        ], owner: owned(by: "project_id"), words: "its documents and folders"),
        Rule(table: "writing_blocks", columns: [
            ("id", blob("id")), ("node_id", blob("node_id")), ("position", integer("position", atLeast: 0)), ("kind", oneOf("kind", blockKinds)),
        ], owner: NodeTable.select(owned(by: "document.project_id"), ofDocument: "writing_blocks.node_id"),
             words: "its documents' paragraphs", scope: NodeTable.isOfProject("writing_blocks.node_id")),
        Rule(table: "writing_entries", columns: [
            ("id", blob("id")), ("project_id", blob("project_id")), ("kind", oneOf("kind", ["character", "place", "plot-beat", "snippet"])),
            ("order_key", "(typeof(order_key) = 'text')"), ("created_at", integer("created_at")),
        ], owner: owned(by: "project_id"), words: "its entries"),
        Rule(table: "writing_snapshots", columns: [
            ("id", blob("id")), ("project_id", blob("project_id")), ("node_id", blob("node_id")), ("sequence", integer("sequence", atLeast: 1)),
            ("form", oneOf("form", ["keyframe", "delta", "group", "grouped"])),
            ("origin", oneOf("origin", ["automatic", "titled", "restore", "adopt", "revert", "discard"])),
            ("parts", "(typeof(parts) = 'integer' AND ((form = 'grouped' AND parts = 0) OR (form <> 'grouped' AND parts >= 1)))"),
            ("device_id", blob("device_id")), ("created_at", integer("created_at")),
        ], owner: owned(by: "project_id"), words: "its documents' versions"),
        Rule(table: "writing_branches", columns: [
            ("id", blob("id")), ("project_id", blob("project_id")), ("node_id", blob("node_id")), ("base_snapshot_id", blob("base_snapshot_id")),
            ("kind", oneOf("kind", ["ai-suggestion", "research-insert", "sync-conflict", "manual"])),
            ("state", oneOf("state", ["open", "adopted", "discarded", "reverted"])), ("parts", integer("parts", atLeast: 1)),
            ("created_at", integer("created_at")), ("decided_at", optional(integer("decided_at"), "decided_at")),
            ("before_snapshot_id", optional(blob("before_snapshot_id"), "before_snapshot_id")),
            ("adopted_snapshot_id", optional(blob("adopted_snapshot_id"), "adopted_snapshot_id")),
        ], owner: owned(by: "project_id"), words: "its branches"),
        Rule(table: "writing_edit_events", columns: [
            ("id", blob("id")), ("project_id", blob("project_id")), ("device_id", blob("device_id")), ("started_at", integer("started_at")),
            ("last_edit_at", integer("last_edit_at")), ("ended_at", optional(integer("ended_at"), "ended_at")), ("edits", integer("edits", atLeast: 1)),
        ], owner: owned(by: "project_id"), words: "its writing sessions' edit events"),
        Rule(table: "writing_project_snapshots", columns: [
            ("id", blob("id")), ("project_id", blob("project_id")), ("sequence", integer("sequence", atLeast: 1)),
            ("origin", oneOf("origin", ["automatic", "titled", "restore"])), ("parts", integer("parts", atLeast: 1)),
            ("device_id", blob("device_id")), ("created_at", integer("created_at")),
        ], owner: owned(by: "project_id"), words: "its project snapshots"),
        Rule(table: "writing_auto_snapshots", columns: [
            ("project_id", blob("project_id")), ("device_id", blob("device_id")), ("node_id", blob("node_id")),
            ("sequence", integer("sequence", atLeast: 0)), ("last_edit_ms", optional(integer("last_edit_ms"), "last_edit_ms")),
            ("active_ms", integer("active_ms", atLeast: 0)), ("characters", integer("characters", atLeast: 0)),
            ("edits", integer("edits", atLeast: 0)), ("received", "(typeof(received) = 'integer' AND received IN (0, 1))"),
        ], owner: owned(by: "project_id"), words: "when its next automatic version is taken"),
    ]

    static func rule(of table: String) -> Rule? { rules.first { $0.table == table } }

    /// Every damaged row of every table, in table then rowid order. A table that cannot be read so
    /// (a vault at an older schema, which its own upgrade tests open: a column not yet made) has none
    /// here; the store's health check and the tables' own readers judge it.
    package static func all(in database: Database) -> [DamagedWritingRow] {
        rules.flatMap { (try? rows(of: $0, in: database)) ?? [] }
    }

    /// The damaged rows of `project`, as `all` would give them: only its own rows are read (each
    /// table's `scope`), so a command on one project, and sync's check of each, does not read every
    /// project's rows (every block of every document) each time.
    package static func rows(of project: ProjectID, in database: Database) -> [DamagedWritingRow] {
        rules.flatMap { (try? rows(of: $0, in: database, scope: project)) ?? [] }.filter { $0.project == project }
    }

    private static func rows(of rule: Rule, in database: Database, scope project: ProjectID? = nil) throws -> [DamagedWritingRow] {
        let checks = rule.columns.enumerated().map { "COALESCE(\($0.element.whole), 0) AS whole_\($0.offset)" }.joined(separator: ", ")
        let everyWhole = rule.columns.map { "COALESCE(\($0.whole), 0)" }.joined(separator: " AND ")
        let scope = project == nil ? "" : "\(rule.scope) AND "
        return try database.query("""
            SELECT rowid AS stored_rowid, \(rule.owner) AS owner, \(checks) FROM "\(rule.table)" WHERE \(scope)NOT (\(everyWhole)) ORDER BY rowid
            """, project.map { [.blob($0.bytes)] } ?? []).map { row in
            let owner = try row.blob("owner")
            let columns = try rule.columns.enumerated().filter { try row.integer("whole_\($0.offset)") == 0 }.map(\.element.name)
            return DamagedWritingRow(table: rule.table, rowid: try row.integer("stored_rowid"),
                                     project: owner.isEmpty ? nil : try ProjectID(bytes: owner), columns: columns)
        }
    }

    /// The tables whose damaged rows are each of a project here: those rows are their projects'
    /// damage, not the store's (`WritingStoreHealth`). A table holding one that names no project is
    /// not listed: that row is nobody's, so the whole store stays refused, as before.
    package static func tablesOwnedByProjects(in database: Database) -> Set<String> {
        let damaged = all(in: database)
        let orphaned = Set(damaged.filter { $0.project == nil }.map(\.table))
        return Set(damaged.map(\.table)).subtracting(orphaned)
    }

    /// What is wrong with `project`'s rows, one line per table, naming the project, the table, the
    /// columns and what mends it; empty when nothing is.
    public static func problems(of project: ProjectID, in rows: [DamagedWritingRow]) -> [String] {
        let own = rows.filter { $0.project == project }
        return Set(own.map(\.table)).sorted().map { table in
            let ofTable = own.filter { $0.table == table }
            var columns: [String] = []
            for column in ofTable.flatMap(\.columns) where !columns.contains(column) { columns.append(column) }
            return "project \(project.hex) is damaged: \(ofTable.count) row(s) of \(table) (\(rule(of: table)?.words ?? table)) "
                + "hold a value no writer stores (\(columns.joined(separator: ", "))); its commands are refused until 'vaultctl repair' mends it"
        }
    }

    /// The warnings every unlocking command prints: one per damaged project and table.
    package static func warnings(in database: Database) -> [String] {
        let damaged = all(in: database)
        return Set(damaged.compactMap(\.project)).sorted { $0.hex < $1.hex }.flatMap { problems(of: $0, in: damaged) }
    }
}

extension WritingStore {
    /// Refuses project `id` when a row of it in one of the writing tables is damaged
    /// (`DamagedWritingRow`): `.damagedRecord` (exit 65), naming the project, the table, the columns
    /// and `vaultctl repair`. Read rather than shown partly: a document missing a paragraph, or a
    /// binder missing a document, would pass for the whole.
    public func refuseDamagedRows(of id: ProjectID) throws {
        let problems = DamagedWritingRow.problems(of: id, in: DamagedWritingRow.rows(of: id, in: transaction.database))
        guard let first = problems.first else { return }
        throw WritingError(.damagedRecord, first)
    }
}
