import CryptoVault

/// The `writing_projects` table, read and written here only: one row per project, all clear (id,
/// compartment, register, kind, times, the name's lookup hash). The name is a sealed record
/// (`WritingRecord.projectName`); its lookup hash (`WritingStore+NameLookup`) is not the name.
struct ProjectTable {
    let database: Database

    /// SQL: whether `column` holds the id of a row of this table (`DamagedWritingRow`).
    static func holds(_ column: String) -> String {
        "EXISTS (SELECT 1 FROM writing_projects AS owner WHERE owner.id = \(column))"
    }

    struct Row {
        let id: ProjectID
        let compartmentID: CompartmentID
        let register: Register
        let kind: ProjectKind
        let createdAt: Int64
        let archivedAt: Int64?
        var viewOnly = false
        /// The name's lookup hash (16 bytes), or nil when none was written (SECURITY.md §14.1).
        var nameLookup: [UInt8]? = nil
    }

    /// A row as stored: whole, or one no writer makes (`DamagedProjectRow`), which is its project's
    /// damage alone and never stops the reading of the others (review 17 s14, N-s14-8).
    enum Stored {
        case whole(Row, rowid: Int64)
        case damaged(DamagedProjectRow)

        var compartmentID: CompartmentID? {
            switch self {
            case .whole(let row, _): row.compartmentID
            case .damaged(let damage): damage.compartmentID
            }
        }
    }

    func insert(_ row: Row) throws {
        try database.query("""
            INSERT INTO writing_projects (id, compartment_uuid, register, kind, created_at) VALUES (?, ?, ?, ?, ?)
            """, [.blob(row.id.bytes), .blob(row.compartmentID.bytes), .text(row.register.rawValue), .text(row.kind.rawValue),
                  .integer(row.createdAt)])
    }

    /// Every row, whole or damaged, oldest first.
    func all() throws -> [Stored] {
        try database.query("SELECT rowid AS stored_rowid, * FROM writing_projects ORDER BY created_at, rowid").map(Self.stored)
    }

    /// Project `id`'s row as stored, whole or damaged; nil when there is none.
    func stored(_ id: ProjectID) throws -> Stored? {
        try database.queryOne("SELECT rowid AS stored_rowid, * FROM writing_projects WHERE id = ?", [.blob(id.bytes)]).map(Self.stored)
    }

    /// Project `id`'s row; nil when there is none. A damaged one is refused (`.damagedRecord`),
    /// naming the columns and what mends it.
    func row(_ id: ProjectID) throws -> Row? {
        switch try stored(id) {
        case nil: return nil
        case .whole(let row, _): return row
        case .damaged(let damage): throw WritingError(.damagedRecord, damage.problem + "; 'vaultctl repair' mends it")
        }
    }

    func setArchived(_ id: ProjectID, at time: Int64?) throws {
        try database.query("UPDATE writing_projects SET archived_at = ? WHERE id = ?",
                           [time.map { .integer($0) } ?? .null, .blob(id.bytes)])
    }

    func setViewOnly(_ id: ProjectID, _ viewOnly: Bool) throws {
        try database.query("UPDATE writing_projects SET view_only = ? WHERE id = ?", [.integer(viewOnly ? 1 : 0), .blob(id.bytes)])
    }

    func setRegister(_ id: ProjectID, _ register: Register) throws {
        try database.query("UPDATE writing_projects SET register = ? WHERE id = ?", [.text(register.rawValue), .blob(id.bytes)])
    }

    /// Writes the project's name lookup hash. A vault at a schema before migration model-2 (one of
    /// its own upgrade tests, writing with this code before it migrates) has no column to keep it in:
    /// then nothing is written, and the project is found by its name as before the column existed.
    func setNameLookup(_ id: ProjectID, _ lookup: [UInt8]) throws {
        guard try database.queryOne("SELECT 1 AS present FROM pragma_table_info('writing_projects') WHERE name = 'name_lookup'") != nil else {
            return
        }
        try database.query("UPDATE writing_projects SET name_lookup = ? WHERE id = ?", [.blob(lookup), .blob(id.bytes)])
    }

    /// Writes again the damaged columns of the row at `rowid` (`ProjectRowMend`): each column named
    /// in `values` takes its value; the others stay as stored.
    func rewrite(rowid: Int64, _ values: [(column: String, value: SQLValue)]) throws {
        guard !values.isEmpty else { return }
        precondition(values.allSatisfy { Self.columns.contains($0.column) }, "not a column of writing_projects")
        try database.query("UPDATE writing_projects SET \(values.map { "\($0.column) = ?" }.joined(separator: ", ")) WHERE rowid = ?",
                           values.map(\.value) + [.integer(rowid)])
    }

    /// The table's columns, in order: the names `rewrite` may set.
    static let columns = ["id", "compartment_uuid", "register", "kind", "created_at", "archived_at", "view_only", "name_lookup"]

    /// A row as stored: each column read as its writers write it (a value no writer makes is damage,
    /// named by its column), whole when every one is.
    private static func stored(_ row: CryptoVault.Row) throws -> Stored {
        let rowid = try row.integer("stored_rowid")
        let id = identifier(row["id"]).flatMap { try? ProjectID(bytes: $0) }
        let compartment = identifier(row["compartment_uuid"]).flatMap { try? CompartmentID(bytes: $0) }
        let register = text(row["register"]).flatMap(Register.init(rawValue:))
        let kind = text(row["kind"]).flatMap(ProjectKind.init(rawValue:))
        let createdAt: Int64? = if case .integer(let time) = row["created_at"] { time } else { nil }
        let archivedAt: Int64?? = switch row["archived_at"] {
        case .null: .some(nil)
        case .integer(let time): .some(time)
        default: nil
        }
        // No column before migration sharing-1 (NULL): a vault at an older schema (opened by its own
        // upgrade tests, which write with this code before they migrate) has no view-only projects.
        let viewOnly: Bool? = switch row["view_only"] {
        case .null, .integer(0): false
        case .integer(1): true
        default: nil
        }
        // NULL (no column before migration model-2, or no hash written yet) is none.
        let nameLookup: [UInt8]?? = switch row["name_lookup"] {
        case .null: .some(nil)
        case .blob(let bytes) where bytes.count == 16: .some(bytes)
        default: nil
        }
        let found: [(String, Bool)] = [("id", id != nil), ("compartment_uuid", compartment != nil), ("register", register != nil),
                                       ("kind", kind != nil), ("created_at", createdAt != nil), ("archived_at", archivedAt != nil),
                                       ("view_only", viewOnly != nil), ("name_lookup", nameLookup != nil)]
        guard let id, let compartment, let register, let kind, let createdAt, let archivedAt, let viewOnly, let nameLookup else {
            return .damaged(DamagedProjectRow(id: id, compartmentID: compartment, columns: found.filter { !$0.1 }.map(\.0), rowid: rowid,
                                              nameLookup: nameLookup ?? nil))
        }
        return .whole(Row(id: id, compartmentID: compartment, register: register, kind: kind, createdAt: createdAt,
                          archivedAt: archivedAt, viewOnly: viewOnly, nameLookup: nameLookup), rowid: rowid)
    }

    private static func identifier(_ value: SQLValue) -> [UInt8]? {
        if case .blob(let bytes) = value, bytes.count == 16 { bytes } else { nil }
    }

    private static func text(_ value: SQLValue) -> String? {
        if case .text(let text) = value { text } else { nil }
    }
}
