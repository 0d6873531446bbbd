import CryptoVault
import Writing

/// The ids a project's records show that this vault's store leaves out, because another project
/// here holds them (`sync_left_out`, SECURITY.md §19.5, review s8 F1). Remembered so that, when the
/// other project lets go of an id, this vault's next commit (which may come before the receive
/// that writes it) does not take the absent node, block or entry for the owner's removal.
struct LeftOutIDs {
    enum Kind: String, CaseIterable { case node, block, entry }

    static let table = "sync_left_out"

    let database: Database
    let project: ProjectID

    /// The ids of `kind` left out of the project.
    func all(_ kind: Kind) throws -> Set<[UInt8]> {
        Set(try database.query("SELECT id FROM sync_left_out WHERE project_id = ? AND kind = ?", [.blob(project.bytes), .text(kind.rawValue)])
            .map { try $0.blob("id") })
    }

    /// A damaged row (`VaultSync.DamagedRows`; closing note s10: a kind that is none of the three):
    /// its id, when whole, is kept under every kind. A left-out id only keeps a commit from taking
    /// its absence for a removal, and ids are random, so one listed under another kind too holds
    /// nothing back. False when the id is not whole: the caller drops the row.
    func mend(_ rowid: Int64) throws -> Bool {
        guard let row = try database.queryOne("SELECT id FROM sync_left_out WHERE rowid = ?", [.integer(rowid)]),
              let id = try? row.blob("id"), id.count == 16 else { return false }
        try database.query("DELETE FROM sync_left_out WHERE rowid = ?", [.integer(rowid)])
        for kind in Kind.allCases { try remember(kind, [id]) }
        return true
    }

    func remember(_ kind: Kind, _ ids: some Sequence<[UInt8]>) throws {
        for id in ids {
            try database.query("INSERT OR IGNORE INTO sync_left_out (project_id, kind, id) VALUES (?, ?, ?)",
                               [.blob(project.bytes), .text(kind.rawValue), .blob(id)])
        }
    }

    func forget(_ kind: Kind, _ ids: some Sequence<[UInt8]>) throws {
        for id in ids {
            try database.query("DELETE FROM sync_left_out WHERE project_id = ? AND kind = ? AND id = ?",
                               [.blob(project.bytes), .text(kind.rawValue), .blob(id)])
        }
    }

    /// Makes `ids` the whole list of `kind` (nodes and entries: every receive looks at all of them).
    func set(_ kind: Kind, to ids: Set<[UInt8]>) throws {
        let held = try all(kind)
        try forget(kind, held.subtracting(ids))
        try remember(kind, ids.subtracting(held))
    }
}
