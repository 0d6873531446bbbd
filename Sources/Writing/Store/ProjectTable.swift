import CryptoVault

/// The `writing_projects` table, read and written here only: one row per project, all clear (id,
/// compartment, register, kind, times). The name is a sealed record (`WritingRecord.projectName`).
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
                   viewOnly: viewOnly)
    }
}
