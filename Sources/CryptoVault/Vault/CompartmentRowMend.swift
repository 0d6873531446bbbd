/// `vaultctl repair` for a live compartment's row in `compartments` whose clear columns no longer
/// agree with its binding (SECURITY.md §4.6): one flipped bit of its register (reviewer15's R15-9:
/// the whole vault refused) or of its id (R15-10: its project lost). The binding is a MAC under a
/// key of the master key over the id, the name hash, the register and the privileged flag, so it
/// says which values the row held: each register, each privileged flag and each id offered (the
/// row's own, and the ids that name no compartment here, which the caller gathers from the rows
/// that name one) is tried, and the row is written again only when exactly one combination
/// verifies. Nothing is guessed: a row whose binding no combination verifies is left as it is, and
/// stays its projects' damage alone.
package enum CompartmentRowMend {
    /// One row written again: its row id, the id it now holds, the columns written.
    package struct Mended: Sendable, Equatable {
        package let rowID: Int64
        package let compartment: CompartmentID
        package let columns: [String]
    }

    /// Mends every live row whose binding fails, trying `candidateIDs` besides each row's own id.
    package static func mend(_ vault: UnlockedVault, candidateIDs: [CompartmentID]) throws -> [Mended] {
        let metadata = try vault.metadataMAC()
        return try vault.transaction { tx in
            let rows = try tx.database.query("SELECT id, uuid, name_hash, register, privileged, binding FROM compartments WHERE destroyed_at IS NULL")
            let held = Set(rows.compactMap { try? CompartmentID(bytes: try $0.blob("uuid")) })
            let offered = candidateIDs.filter { !held.contains($0) }
            var mended: [Mended] = []
            for row in rows {
                guard let found = try found(row, offered: offered, metadata: metadata) else { continue }
                try tx.database.query("UPDATE compartments SET uuid = ?, register = ?, privileged = ? WHERE id = ?",
                                      [.blob(found.id.bytes), .text(found.register.rawValue), .integer(found.privileged ? 1 : 0),
                                       .integer(found.rowID)])
                try tx.record(.compartmentRowMended, compartment: found.id, details: [.init("columns", found.columns.joined(separator: ","))])
                mended.append(Mended(rowID: found.rowID, compartment: found.id, columns: found.columns))
            }
            return mended
        }
    }

    private struct Found {
        let rowID: Int64, id: CompartmentID, register: Register, privileged: Bool, columns: [String]
    }

    /// The one (id, register, privileged) the row's binding verifies, when the row's own values do
    /// not; nil when they do, when the row has no binding (a vault bound before migration 12 binds
    /// every row at unlock), or when no combination or more than one does.
    private static func found(_ row: Row, offered: [CompartmentID], metadata: MetadataMAC) throws -> Found? {
        guard case .blob(let binding) = row["binding"], case .blob(let nameHash) = row["name_hash"] else { return nil }
        let rowID = try row.integer("id")
        let ownID = try? CompartmentID(bytes: try row.blob("uuid"))
        let ownRegister = (try? row.text("register")).flatMap(Register.init(rawValue:))
        let ownPrivileged = (try? row.integer("privileged")) == 1
        if let ownID, let ownRegister,
           metadata.isValid(binding, expected: metadata.compartmentBinding(id: ownID, nameHash: nameHash, register: ownRegister.rawValue,
                                                                           privileged: ownPrivileged)) {
            return nil
        }
        var matches: [Found] = []
        for id in (ownID.map { [$0] } ?? []) + offered {
            for register in Register.allCases {
                for privileged in [ownPrivileged, !ownPrivileged]
                where metadata.isValid(binding, expected: metadata.compartmentBinding(id: id, nameHash: nameHash, register: register.rawValue,
                                                                                      privileged: privileged)) {
                    let columns = [id != ownID ? "uuid" : nil, register != ownRegister ? "register" : nil,
                                   privileged != ownPrivileged ? "privileged" : nil].compactMap { $0 }
                    matches.append(Found(rowID: rowID, id: id, register: register, privileged: privileged, columns: columns))
                }
            }
        }
        return matches.count == 1 ? matches[0] : nil
    }
}
