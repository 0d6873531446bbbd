import AuditChain
import CryptoVault
import PrivilegedSession

/// `vaultctl repair` for the damaged rows of the writing tables other than `writing_projects`
/// (`DamagedWritingRow`; reviewer15's R15-1, R15-4), each in its own audited transaction
/// (`writing.row-mended`: table, columns, done, from), never from the damaged row itself:
/// - a derived row that holds no words is dropped: the automatic-snapshot marker (the next edit
///   makes it again) and an edit event (a writing session's counts, with its sealed record; the
///   words it counted stay in the document and its versions);
/// - a node's kind and creation time: from the audit log's `writing.node-add` of that node (its
///   `kind` detail and its time), read in a session of the compartment when it is privileged;
/// - a block's position: the one place its document's other blocks leave free; its kind: the one
///   sealed in its record (R15-4), a privileged project's opened in a session (actor `repair`);
/// - anything else is said, not guessed: the project stays refused, and `vaultctl repair --from
///   DEVICE` rebuilds it from an own device.
/// A row that names no project here is not this repair's (`DamagedWritingRow`: the whole store's).
public enum WritingRowMend {
    public struct Outcome: Sendable, Equatable {
        public let row: DamagedWritingRow
        /// The columns written again (empty when dropped or not mended).
        public let mended: [String]
        public let dropped: Bool
        /// Why the row could not be mended (nil when it was).
        public let notMended: String?
    }

    static let derivedTables: Set<String> = ["writing_auto_snapshots", "writing_edit_events"]

    public static func mend(_ vault: UnlockedVault) throws -> [Outcome] {
        let damaged = try vault.vault.read { DamagedWritingRow.all(in: $0) }
        return damaged.map { row in
            guard row.project != nil else {
                return Outcome(row: row, mended: [], dropped: false,
                               notMended: "it names no project here, so it is the whole store's damage; 'vaultctl repair --from DEVICE' rebuilds the store")
            }
            do { return try mend(row, in: vault) } catch {
                let code = (error as? WritingError)?.code.rawValue ?? (error as? CryptoVaultError)?.code.rawValue ?? "unreadable"
                return Outcome(row: row, mended: [], dropped: false, notMended: "it could not be written again (\(code))")
            }
        }
    }

    private static func mend(_ row: DamagedWritingRow, in vault: UnlockedVault) throws -> Outcome {
        let notMended = { (why: String) in Outcome(row: row, mended: [], dropped: false, notMended: why) }
        if derivedTables.contains(row.table) {
            try vault.transaction { tx in try WritingStore(tx).dropDerivedRow(row) }
            return Outcome(row: row, mended: [], dropped: true, notMended: nil)
        }
        let values: [(column: String, value: SQLValue)]?
        switch row.table {
        case "writing_nodes" where Set(row.columns).isSubset(of: ["kind", "created_at"]):
            values = try nodeValues(row, in: vault)
        case "writing_blocks" where row.columns == ["kind"]:
            values = try sealedKind(row, in: vault).map { [("kind", SQLValue.text($0))] }
        case "writing_blocks" where row.columns == ["position"]:
            values = try vault.transaction { tx in try WritingStore(tx).freePosition(of: row).map { [("position", SQLValue.integer($0))] } }
        default:
            values = nil
        }
        guard let values else {
            return notMended("no sealed record or audit entry here says what its \(row.columns.joined(separator: ", ")) held; "
                             + "'vaultctl repair --from DEVICE' rebuilds the project from your own device")
        }
        try vault.transaction { tx in try WritingStore(tx).rewriteDamagedRow(row, values) }
        return Outcome(row: row, mended: values.map(\.column), dropped: false, notMended: nil)
    }

    /// A block's kind as sealed in its record (R15-4: the clear column must equal it, §14.4); a
    /// privileged project's opened in a session (actor `repair`). Nil when the record does not open.
    private static func sealedKind(_ row: DamagedWritingRow, in vault: UnlockedVault) throws -> String? {
        guard let projectID = row.project else { return nil }
        let project = try vault.transaction { tx in try WritingStore(tx).project(projectID) }
        let session = project.compartment.isPrivileged
            ? try PrivilegedProcessingSession.start(vault: vault, compartment: project.compartment, actor: "repair", purpose: "mend a damaged writing row")
            : nil
        defer { try? session?.end() }
        let access: RecordAccess = session.map { .session($0) } ?? .vault
        return try? vault.transaction { tx in try WritingStore(tx, access: access).sealedKind(of: row, in: project) }
    }

    /// A node's kind and creation time from its `writing.node-add` entry; nil when no readable one says them.
    private static func nodeValues(_ row: DamagedWritingRow, in vault: UnlockedVault) throws -> [(column: String, value: SQLValue)]? {
        guard let projectID = row.project else { return nil }
        let (project, node) = try vault.transaction { tx in
            (try WritingStore(tx).project(projectID), try NodeTable(database: tx.database).id(atRowid: row.rowid))
        }
        guard let node, node.count == 16 else { return nil }
        let session = project.compartment.isPrivileged
            ? try PrivilegedProcessingSession.start(vault: vault, compartment: project.compartment, actor: "repair", purpose: "mend a damaged writing row")
            : nil
        defer { try? session?.end() }
        let keys = try vault.auditKeys()
        guard let added = try AuditLogReader(vault: vault.vault).entries().first(where: {
            $0.subjectID == node && $0.action == AuditAction.writingNodeAdd.name
        }) else { return nil }
        let details = (try? AuditLogReader.details(of: added, vaultID: vault.vault.vaultID, keys: keys)) ?? []
        var values: [(column: String, value: SQLValue)] = []
        for column in row.columns {
            switch column {
            case "kind":
                guard let kind = details.first(where: { $0.name == "kind" })?.value, ["chapter", "scene"].contains(kind) else { return nil }
                values.append((column, .text(kind)))
            default: values.append((column, .integer(added.time)))
            }
        }
        return values
    }
}

extension WritingStore {
    /// Drops a derived row that holds no words (`WritingRowMend`), with an edit event's sealed
    /// record, recorded (`writing.row-mended`, done `dropped`).
    func dropDerivedRow(_ row: DamagedWritingRow) throws {
        guard let projectID = row.project else { return }
        let project = try self.project(projectID)
        if row.table == "writing_edit_events",
           let id = try EditEventTable(database: transaction.database).id(atRowid: row.rowid),
           let event = try? EditEventID(bytes: id) {
            try? transaction.removeRecord(at: try WritingRecord.editEvent(event), in: project.compartment)
        }
        try LinksFoundWhole.forget(in: transaction)
        try transaction.database.query("DELETE FROM \"\(row.table)\" WHERE rowid = ?", [.integer(row.rowid)])
        try record(.writingRowMended, project, subject: project.id, details: Self.mendDetails(row, done: "dropped", from: "derived"))
    }

    /// Writes the damaged columns of a row again (`WritingRowMend`), recorded (`writing.row-mended`);
    /// the row must then be whole, or nothing is written.
    func rewriteDamagedRow(_ row: DamagedWritingRow, _ values: [(column: String, value: SQLValue)]) throws {
        guard let projectID = row.project, let rule = DamagedWritingRow.rule(of: row.table),
              values.allSatisfy({ value in rule.columns.contains { $0.name == value.column } }) else { return }
        let project = try self.project(projectID)
        try LinksFoundWhole.forget(in: transaction)
        try transaction.database.query("UPDATE \"\(row.table)\" SET \(values.map { "\($0.column) = ?" }.joined(separator: ", ")) WHERE rowid = ?",
                                       values.map(\.value) + [.integer(row.rowid)])
        guard !DamagedWritingRow.rows(of: projectID, in: transaction.database).contains(where: { $0.table == row.table && $0.rowid == row.rowid }) else {
            throw WritingError(.damagedRecord, "the row of \(row.table) is still damaged after it was written again")
        }
        try record(.writingRowMended, project, subject: project.id,
                   details: Self.mendDetails(row, done: "rewritten", from: Self.source(of: row)))
    }

    /// Where a rewritten row's values came from (`WritingRowMend`).
    package static func source(of row: DamagedWritingRow) -> String {
        row.table != "writing_blocks" ? "audit-log" : row.columns == ["kind"] ? "sealed-record" : "document"
    }

    /// The kind sealed in a damaged block's record (`WritingRowMend`); the read is recorded as every read is.
    func sealedKind(of row: DamagedWritingRow, in project: WritingProject) throws -> String? {
        guard let id = try blockTable.id(atRowid: row.rowid),
              let block = try? BlockID(bytes: id) else { return nil }
        return try open([try WritingRecord.block(block)], of: project) { _, plaintext in
            BlockEncoding.name(of: try BlockEncoding.decode(plaintext, id: block).kind)
        }.first
    }

    /// The one position a damaged block's document leaves free (its other blocks hold 0 to n−1 but
    /// one); nil when that is not so.
    func freePosition(of row: DamagedWritingRow) throws -> Int64? {
        let taken = try blockTable.positions(besideRowid: row.rowid)
        let free = Set(0...Int64(taken.count)).subtracting(taken)
        return free.count == 1 && Set(taken).count == taken.count ? free.first : nil
    }

    private static func mendDetails(_ row: DamagedWritingRow, done: String, from: String) -> [VaultEvent.Detail] {
        [.init("table", row.table), .init("columns", row.columns.joined(separator: ",")), .init("done", done), .init("from", from)]
    }
}
