import CryptoVault
import Writing

extension VaultSync {
    /// Rows of `sync_records` that no writer makes (SECURITY.md §19.10; review 17 s9, N-s9-6): a clear
    /// column past its CHECK (a counter a flipped sign bit made -5), of another type, or a part count
    /// past what a record is cut into. Such a row is damage to its project's sync state, not to the
    /// writing store: the vault opens as ever, the project works local-only with the reason (its
    /// documents read and written as ever, the owner's unsynced words among them) and `vaultctl repair`
    /// writes the row's columns again from the sealed record it names (`mend`). Before, the open sent
    /// the whole store to the in-memory mode, whose copy showed no project, and `repair --from` then
    /// replaced words no other device held.
    public enum DamagedRecords {
        public static let table = "sync_records"

        /// The most parts a stored record is cut into: one of the codec's largest size
        /// (`storedParts` reads the column with the same bound).
        static let mostParts = (ChangeRecordCodec.maximumSize + VaultSync.partSize - 1) / VaultSync.partSize

        /// What a row `VaultSync.storeRecord` writes holds, as SQL over its columns (by `typeof`, so a
        /// value of another type never passes as one it resembles, and a NULL never passes).
        static let wholeRow = """
            typeof(hash) = 'blob' AND length(hash) = 32 AND typeof(project_id) = 'blob' AND length(project_id) = 16
            AND typeof(device_id) = 'blob' AND length(device_id) = 16 AND typeof(counter) = 'integer' AND counter >= 1
            AND typeof(lamport) = 'integer' AND lamport >= 1 AND typeof(parts) = 'integer' AND parts BETWEEN 1 AND \(mostParts)
            AND typeof(stored_at) = 'integer'
            """

        /// Each damaged row: its rowid, and the project it names when its project id is whole.
        static func rows(in database: Database) throws -> [(rowid: Int64, project: ProjectID?)] {
            try database.query("""
                SELECT rowid, CASE WHEN typeof(project_id) = 'blob' AND length(project_id) = 16 THEN project_id END AS project
                FROM sync_records WHERE NOT (\(wholeRow)) ORDER BY rowid
                """).map { row in
                let project = try row.blob("project")
                return (try row.integer("rowid"), project.isEmpty ? nil : try ProjectID(bytes: project))
            }
        }

        /// Throws `.damagedSyncState` when a row of `project`'s stored records is damaged: the project
        /// works local-only, with the reason and what mends it.
        static func check(_ project: ProjectID, in database: Database) throws {
            let damaged = try database.query("SELECT counter, parts, lamport FROM sync_records WHERE project_id = ? AND NOT (\(wholeRow)) ORDER BY rowid",
                                             [.blob(project.bytes)])
            guard let first = damaged.first else { return }
            throw SyncError(.damagedSyncState, """
                the sync state of project \(project) is damaged: \(what(first)) (\(damaged.count) row(s) of \(table) hold a value no writer \
                stores); the project works local-only until 'vaultctl repair' mends it
                """)
        }

        /// What is wrong with a damaged row, in the words `VaultSync.storedCounter` uses; a value of
        /// another type is not quoted (it could be any text).
        private static func what(_ row: Row) -> String {
            let columns: [(name: String, words: String, whole: ClosedRange<Int64>)] = [
                ("counter", "counter", 1...Int64.max), ("parts", "number of parts", 1...Int64(mostParts)), ("lamport", "lamport clock", 1...Int64.max),
            ]
            for column in columns {
                guard case .integer(let value) = row[column.name] else { return "a stored record's \(column.words) is not a number" }
                if !column.whole.contains(value) { return "a stored record's \(column.words) is \(value)" }
            }
            return "a stored record's hash, device or time is not one a writer stores"
        }
    }
}
