import CryptoVault
import Writing

extension VaultSync {
    /// Damaged rows of the sync module's tables, each of which belongs to one project (SECURITY.md
    /// §19.5, §19.10; closing note s10, "Left open"): a row no writer makes (a clear column past its
    /// CHECK, of another type, NULL where none is written) whose project id is whole is that
    /// project's damaged sync state, as a damaged row of `sync_records` is (`DamagedRecords`): the
    /// vault opens as ever (no in-memory mode), the project works local-only with the reason, and
    /// `vaultctl repair` mends the row (`mend`). A damaged row whose project id is not whole names
    /// no project: the store's damage, as before (the in-memory mode until `repair`, which drops it).
    public enum DamagedRows {
        /// What a row of each table its writers make holds, as SQL over its columns (by `typeof`, so
        /// a value of another type never passes as one it resembles); `sync_records` is
        /// `DamagedRecords.wholeRow`.
        static let wholeRows: [String: String] = [
            DamagedRecords.table: DamagedRecords.wholeRow,
            "sync_conflict_branches": "\(blob("conflict")) AND \(blob("project_id")) AND \(blob("branch_id"))",
            HeldBases.table: """
                \(blob("document_id")) AND \(blob("project_id")) AND typeof(parts) = 'integer' AND parts BETWEEN 1 AND \(HeldBases.mostParts)
                AND typeof(held_at) = 'integer'
                """,
            "sync_left_out": "\(blob("project_id")) AND typeof(kind) = 'text' AND kind IN ('node', 'block', 'entry') AND \(blob("id"))",
            "sync_own_floors": "\(blob("project_id")) AND typeof(counter) = 'integer' AND counter >= 1 AND typeof(set_at) = 'integer'",
            VaultSync.setAsideTable: VaultSync.wholeSetAsideRow,
            VaultSync.forkLeftOutTable: VaultSync.wholeForkLeftOutRow,
            RestoreWaits.table: RestoreWaits.wholeRow,
        ]

        /// What each table keeps, for the reason a project is local-only.
        static let words: [String: String] = [
            DamagedRecords.table: "its stored change records",
            "sync_conflict_branches": "which branch holds each conflict",
            HeldBases.table: "the text an open editor's edits are made from",
            "sync_left_out": "what its records show that another project here holds",
            "sync_own_floors": "how far this device's own records of it went",
            VaultSync.setAsideTable: "this device's edits its owner refused, set aside",
            VaultSync.forkLeftOutTable: "the copies of a fork its records left out",
            RestoreWaits.table: "the devices it waits for since it was restored",
        ]

        private static func blob(_ column: String) -> String { "(typeof(\(column)) = 'blob' AND length(\(column)) = 16)" }

        static var tables: [String] { wholeRows.keys.sorted() }

        /// Each damaged row of `table`: its rowid, and the project it names when its project id is whole.
        static func rows(of table: String, in database: Database) throws -> [(rowid: Int64, project: ProjectID?)] {
            guard let whole = wholeRows[table] else { return [] }
            return try database.query("""
                SELECT rowid, CASE WHEN typeof(project_id) = 'blob' AND length(project_id) = 16 THEN project_id END AS project
                FROM "\(table)" WHERE NOT (\(whole)) ORDER BY rowid
                """).map { row in
                let project = try row.blob("project")
                return (try row.integer("rowid"), project.isEmpty ? nil : try ProjectID(bytes: project))
            }
        }

        /// The tables whose damaged rows each name a project: those rows are their projects' sync
        /// state, not the store's damage. A table with none, or that cannot be read, is not listed.
        package static func projectsOwn(in database: Database) -> Set<String> {
            Set(tables.filter { table in
                guard let rows = try? rows(of: table, in: database), !rows.isEmpty else { return false }
                // One naming no project keeps every waiting project waiting (`RestoreWaits+Damage`).
                return table == RestoreWaits.table || rows.allSatisfy { $0.project != nil }
            })
        }

        /// The projects with a damaged row in any of the tables, in id order.
        package static func projects(in database: Database) throws -> [ProjectID] {
            Set(try tables.filter { $0 != RestoreWaits.table }.flatMap { try rows(of: $0, in: database).compactMap(\.project) }
                + RestoreWaits(database: database).damaged().compactMap(\.project)).sorted { $0.hex < $1.hex }
        }

        /// Throws `.damagedSyncState` when a row of `project` in one of the tables is damaged: the
        /// project works local-only, with the table, what it keeps and what mends it.
        static func check(_ project: ProjectID, in database: Database) throws {
            try DamagedRecords.check(project, in: database)
            for table in tables where table != DamagedRecords.table {
                // A restore's wait is damaged too where its row names a device not paired (`RestoreWaits+Damage`).
                let damaged: Int64
                if table == RestoreWaits.table {
                    damaged = Int64(try RestoreWaits(database: database).damaged(of: project).count)
                } else {
                    damaged = try database.queryOne("SELECT count(*) AS rows FROM \"\(table)\" WHERE project_id = ? AND NOT (\(wholeRows[table] ?? "1"))",
                                                    [.blob(project.bytes)])?.integer("rows") ?? 0
                }
                guard damaged > 0 else { continue }
                throw SyncError(.damagedSyncState, """
                    the sync state of project \(project) is damaged: \(damaged) row(s) of \(table) (\(words[table] ?? table)) hold a value no \
                    writer stores; the project works local-only until 'vaultctl repair' mends it
                    """)
            }
        }
    }
}

extension VaultSync.DamagedRows {
    /// What is wrong with each project of `vault` that has a damaged row, when its open found one
    /// (`Vault.damagedModuleRows`): for the warning every unlocking command prints.
    public static func problems(of vault: UnlockedVault) -> [String] {
        // A restore's wait naming a device not paired, or no waiting project, breaks no CHECK: read each time.
        let waits = (try? vault.vault.read { try RestoreWaits(database: $0).damaged() }) ?? []
        guard waits.isEmpty == false || tables.contains(where: { vault.vault.damagedModuleRows[$0] != nil }) else { return [] }
        let orphans = waits.filter { $0.project == nil }.count
        return (try? vault.transaction { tx in
            try projects(in: tx.database).compactMap { project in
                do { try check(project, in: tx.database) } catch let error as SyncError { return error.message }
                return nil
            } + (orphans == 0 ? [] : ["""
                \(orphans) row(s) of \(RestoreWaits.table) (\(words[RestoreWaits.table] ?? "")) name no project that waits here: every project \
                waiting since the restore keeps waiting until 'vaultctl repair' mends them
                """])
        }) ?? []
    }
}
