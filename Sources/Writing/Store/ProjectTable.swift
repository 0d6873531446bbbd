import CryptoVault

/// The `writing_projects` table, read and written here only: one row per project, all clear (id,
/// compartment, register, kind, times, the name's lookup hash). The name is a sealed record
/// (`WritingRecord.projectName`); its lookup hash (`WritingStore+NameLookup`) is not the name.
struct ProjectTable {
    let database: Database

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

    func insert(_ row: Row) throws {
        try database.query("""
            INSERT INTO writing_projects (id, compartment_uuid, register, kind, created_at) VALUES (?, ?, ?, ?, ?)
            """, [.blob(row.id.bytes), .blob(row.compartmentID.bytes), .text(row.register.rawValue), .text(row.kind.rawValue),
                  .integer(row.createdAt)])
    }

    func all() throws -> [Row] {
        try database.query("SELECT * FROM writing_projects ORDER BY created_at, rowid").map(decode)
    }

    func row(_ id: ProjectID) throws -> Row? {
        try database.queryOne("SELECT * FROM writing_projects WHERE id = ?", [.blob(id.bytes)]).map(decode)
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

    /// A row as stored; a value no writer makes (an unknown register or kind) is damage.
    private func decode(_ row: CryptoVault.Row) throws -> Row {
        guard let register = Register(rawValue: try row.text("register")),
              let kind = ProjectKind(rawValue: try row.text("kind")) else {
            throw WritingError(.damagedRecord, "a writing_projects row has an unknown register or kind")
        }
        let archived: Int64? = if case .integer(let time) = row["archived_at"] { time } else { nil }
        // No column before migration sharing-1: a vault at an older schema (opened by its own upgrade
        // tests, which write with this code before they migrate) has no view-only projects.
        let viewOnly: Bool
        switch row["view_only"] {
        case .null, .integer(0): viewOnly = false
        case .integer(1): viewOnly = true
        default: throw WritingError(.damagedRecord, "a writing_projects row has a view_only flag other than 0 or 1")
        }
        return Row(id: try ProjectID(bytes: try row.blob("id")), compartmentID: try CompartmentID(bytes: try row.blob("compartment_uuid")),
                   register: register, kind: kind, createdAt: try row.integer("created_at"), archivedAt: archived,
                   viewOnly: viewOnly, nameLookup: try Self.nameLookup(row))
    }

    /// NULL (no column before migration model-2, or no hash written yet) is nil; a value no writer
    /// makes (not 16 bytes) is damage.
    private static func nameLookup(_ row: CryptoVault.Row) throws -> [UInt8]? {
        switch row["name_lookup"] {
        case .null: return nil
        case .blob(let bytes) where bytes.count == 16: return bytes
        default: throw WritingError(.damagedRecord, "a writing_projects row has a name_lookup other than 16 bytes")
        }
    }
}
