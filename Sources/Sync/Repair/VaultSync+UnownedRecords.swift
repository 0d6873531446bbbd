import CryptoVault
import Synchronization
import Writing

extension VaultSync {
    /// Stored records whose project id is not their record's (SECURITY.md §19.5, §19.10): one that
    /// names no project here (review 17 s11, N-s11-5: one byte of a row's `project_id` changed, or
    /// the value made another type), or names another project here than the one whose compartment
    /// keeps its sealed record (session 13: a hostile rewrite to a real project's id). Every
    /// per-project query passed such a row over, so this device's next record of its project took
    /// the counter the hidden record holds: two records of one number, which its own devices refuse
    /// for good.
    ///
    /// Whose such a row is, is told by the compartment its sealed record is kept in (each project has
    /// its own; the signed record inside names its project, which `repair` checks before it writes the
    /// id again). That project works local-only with the reason until `vaultctl repair` mends the row,
    /// and so does the project a moved row names; when whose a row naming no project is cannot be told
    /// (no sealed record under the row's hash, or one that does not open where its row says), any
    /// project could be its, and every project works local-only. A row is never dropped for naming no
    /// project: that would let its counter be signed again.
    ///
    /// A row moved to another project's id is found among the *heads* (each device's highest counter
    /// in each project): a device's records of a project are stored with their past, so a moved row
    /// that was not its device's last in its project leaves a later record there waiting for a parent
    /// (the replica says so), and in the project it was moved to it holds a counter above that
    /// device's others there (the two share no counter: `UNIQUE (project_id, device_id, counter)`), so
    /// it is a head there. Each head's first sealed part is opened in the compartment of the project
    /// its row names (a privileged one's says only a session reads it: its own; one of another
    /// compartment says so before anything is opened).
    ///
    /// Run whenever a replica is made, so the verdict that every row names its own project is kept
    /// per connection with SQLite's `data_version` (review 17 s12, PERF: a cold exchange over P
    /// projects read every project's ids for each, O(P²)): no writer of this process stores such a
    /// row (each names the project it stores for, and `sync_records` refers to `writing_projects`),
    /// so only a commit of another connection can make one, and that moves `data_version`. A verdict
    /// of damage is never kept: the next check reads again (a repair in this process mends it).
    public enum UnownedRecords {
        /// Whose an unowned row is, as far as the vault tells without a privileged session.
        enum Owner: Equatable {
            case project(ProjectID)
            case unknown
        }

        /// The distinct project ids of the stored records, one index seek each (never a scan of
        /// every row: this runs whenever a replica is made), each with whether it is a whole id.
        static let storedProjectIDs = """
            WITH RECURSIVE ids(id) AS (
                SELECT min(project_id) FROM sync_records
                UNION ALL
                SELECT (SELECT min(project_id) FROM sync_records WHERE project_id > ids.id) FROM ids WHERE ids.id IS NOT NULL
            )
            SELECT CASE WHEN typeof(id) = 'blob' AND length(id) = 16 THEN id END AS id FROM ids WHERE id IS NOT NULL
            """

        /// Each device's highest-counter row in each project (the table's unique index read in order).
        static let heads = """
            SELECT rowid, hash, project_id, max(counter) AS counter FROM sync_records
            WHERE typeof(project_id) = 'blob' AND length(project_id) = 16 GROUP BY project_id, device_id
            """

        /// The connections whose rows were last found each naming its own project, with SQLite's
        /// `data_version` then (references weak: nothing here keeps a connection open).
        private struct Checked: Sendable {
            weak var database: Database?
            let dataVersion: Int64
        }

        private static let checked = Mutex<[Checked]>([])

        /// Whether the verdict that every row names its own project stands for `transaction`'s
        /// connection now (kept, and no other connection committed since).
        static func keptClean(in transaction: VaultTransaction) throws -> Bool {
            let database = transaction.database
            let version = try dataVersion(database)
            return checked.withLock { $0.contains { $0.database === database && $0.dataVersion == version } }
        }

        private static func dataVersion(_ database: Database) throws -> Int64 {
            try database.queryOne("PRAGMA data_version")?.integer("data_version") ?? -1
        }

        /// The rowid and hash of each stored record whose project id names no project of `store`,
        /// in rowid order; nothing more is read while every id names one.
        static func rows(in store: WritingStore) throws -> [(rowid: Int64, hash: [UInt8])] {
            let database = store.transaction.database
            var strays: [SQLValue] = []
            // A NULL sorts first: the index's first entry says whether there is one.
            var notAnID = try database.queryOne("SELECT project_id IS NULL AS found FROM sync_records ORDER BY project_id LIMIT 1")?.integer("found") == 1
            for row in try database.query(storedProjectIDs) {
                guard case .blob(let id) = row["id"] else { notAnID = true; continue }
                if !(try names(id, in: store)) { strays.append(.blob(id)) }
            }
            var found: [(rowid: Int64, hash: [UInt8])] = []
            let hashOf = { (row: Row) in (try row.integer("rowid"), (try? row.blob("hash")) ?? []) }
            for id in strays {
                found += try database.query("SELECT rowid, hash FROM sync_records WHERE project_id = ?", [id]).map(hashOf)
            }
            if notAnID {
                found += try database.query("""
                    SELECT rowid, hash FROM sync_records WHERE project_id IS NULL OR typeof(project_id) != 'blob' OR length(project_id) != 16
                    """).map(hashOf)
            }
            return found.sorted { $0.rowid < $1.rowid }
        }

        /// The head rows (`heads`) whose sealed record the compartment of the project they name does
        /// not keep: each with that project, in rowid order.
        static func moved(in store: WritingStore) throws -> [(rowid: Int64, hash: [UInt8], named: ProjectID)] {
            var projects: [ProjectID: WritingProject?] = [:]
            var found: [(rowid: Int64, hash: [UInt8], named: ProjectID)] = []
            for row in try store.transaction.database.query(heads) {
                guard let hash = try? row.blob("hash"), hash.count == 32, let id = try? ProjectID(bytes: try row.blob("project_id")),
                      let location = try? VaultSync.location(hash, part: 0) else { continue }
                if projects[id] == nil { projects[id] = .some(try? store.project(id)) }
                // A row naming no project here is `rows(in:)`'s.
                guard let project = projects[id] ?? nil else { continue }
                do { try store.transaction.openRecords(at: [location], in: project.compartment) { _, _ in } } catch let error as CryptoVaultError
                    where error.code == .recordFromAnotherCompartment {
                    found.append((try row.integer("rowid"), hash, id))
                } catch {
                    // Its own (a privileged compartment's, read only in a session), or not kept at all:
                    // the project's replica says that.
                }
            }
            return found.sorted { $0.rowid < $1.rowid }
        }

        /// Whether `id` names a project of `store` (a project row that is itself damaged names one:
        /// its damage is said where it is read).
        static func names(_ id: [UInt8], in store: WritingStore) throws -> Bool {
            do { _ = try store.project(try ProjectID(bytes: id)) } catch let error as WritingError where error.code == .projectNotFound {
                return false
            } catch {}
            return true
        }

        /// The project whose compartment keeps the sealed record `hash` names (its first part),
        /// found by asking each project's compartment for it: an ordinary one opens it (it is that
        /// compartment's), a privileged one says only a session reads it (its row is that
        /// compartment's), any other says it is another's. `.unknown` when none keeps it, or when it
        /// does not open where its row says.
        static func owner(of hash: [UInt8], among projects: [WritingProject], in transaction: VaultTransaction) -> Owner {
            guard hash.count == 32, let location = try? VaultSync.location(hash, part: 0) else { return .unknown }
            for project in projects {
                do {
                    try transaction.openRecords(at: [location], in: project.compartment) { _, _ in }
                    return .project(project.id)
                } catch let error as CryptoVaultError where error.code == .recordFromAnotherCompartment {
                    continue
                } catch let error as CryptoVaultError where error.code == .privilegedSessionRequired {
                    return .project(project.id)
                } catch {
                    return .unknown
                }
            }
            return .unknown
        }

        /// Throws `.damagedSyncState` when a stored record that names no project here is `project`'s,
        /// or could be any project's, or when a stored record named as another project's is
        /// `project`'s, or one named as `project`'s is another's: the project works local-only, with
        /// the reason and what mends it.
        static func check(_ project: ProjectID, in store: WritingStore) throws {
            guard try !keptClean(in: store.transaction) else { return }
            let database = store.transaction.database
            let version = try dataVersion(database)
            let unowned = try rows(in: store)
            let moved = try moved(in: store)
            guard !unowned.isEmpty || !moved.isEmpty else {
                checked.withLock { kept in
                    kept.removeAll { $0.database == nil || $0.database === database }
                    kept.append(Checked(database: database, dataVersion: version))
                }
                return
            }
            let projects = try store.projects()
            let owners = unowned.map { owner(of: $0.hash, among: projects, in: store.transaction) }
            let unknown = owners.filter { $0 == .unknown }.count
            if unknown > 0 {
                throw SyncError(.damagedSyncState, """
                    the sync state of project \(project) is damaged: \(unknown) stored record(s) name no project here and whose they are \
                    cannot be told (their sealed record is not kept under their hash, or does not open where its row says), so any \
                    project could be theirs; every project works local-only until 'vaultctl repair' mends them or 'vaultctl repair \
                    --from DEVICE' rebuilds the store from your own device
                    """)
            }
            let own = owners.filter { $0 == .project(project) }.count
            if own > 0 {
                throw SyncError(.damagedSyncState, """
                    the sync state of project \(project) is damaged: \(own) stored record(s) of it name no project here (their project id \
                    is damaged; their sealed record is kept in this project's compartment); the project works local-only until 'vaultctl \
                    repair' mends it
                    """)
            }
            try checkMoved(moved, of: project, among: projects, in: store.transaction)
        }

        /// The moved rows' part of `check`: a row named as `project`'s whose record another project
        /// keeps, or one named as another's whose record `project` keeps.
        private static func checkMoved(_ moved: [(rowid: Int64, hash: [UInt8], named: ProjectID)], of project: ProjectID,
                                       among projects: [WritingProject], in transaction: VaultTransaction) throws {
            let named = moved.filter { $0.named == project }.count
            if named > 0 {
                throw SyncError(.damagedSyncState, """
                    the sync state of project \(project) is damaged: \(named) stored record(s) named as this project's are kept in another \
                    project's compartment (their project id was rewritten); the project works local-only until 'vaultctl repair' mends it
                    """)
            }
            let elsewhere = moved.filter { owner(of: $0.hash, among: projects, in: transaction) == .project(project) }
            guard let first = elsewhere.first else { return }
            throw SyncError(.damagedSyncState, """
                the sync state of project \(project) is damaged: \(elsewhere.count) stored record(s) of it (their sealed record is kept in \
                this project's compartment) are named as another project's (project \(first.named)): its next record would take a \
                counter one of them holds; the project works local-only until 'vaultctl repair' mends it
                """)
        }
    }
}
