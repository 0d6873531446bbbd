import CryptoVault
import Writing

extension VaultSync {
    /// Stored records whose project id names no project here (SECURITY.md §19.5, §19.10; review 17
    /// s11, N-s11-5): one byte of a row's `project_id` changed, or the value made another type. Every
    /// per-project query passed such a row over, so nothing noticed it (`sync status` "syncs",
    /// `repair` "nothing to mend") and this device's next record of the project took the counter the
    /// hidden record holds: two records of one number, which its own devices refuse for good.
    ///
    /// Whose such a row is, is told by the compartment its sealed record is kept in (each project has
    /// its own; the signed record inside names its project, which `repair` checks before it writes the
    /// id again). That project works local-only with the reason until `vaultctl repair` mends the row;
    /// when it cannot be told (no sealed record under the row's hash, or one that does not open where
    /// its row says), any project could be its, and every project works local-only. A row is never
    /// dropped for naming no project: that would let its counter be signed again.
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
        /// or could be any project's: the project works local-only, with the reason and what mends it.
        static func check(_ project: ProjectID, in store: WritingStore) throws {
            let rows = try rows(in: store)
            guard !rows.isEmpty else { return }
            let projects = try store.projects()
            let owners = rows.map { owner(of: $0.hash, among: projects, in: store.transaction) }
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
            guard own > 0 else { return }
            throw SyncError(.damagedSyncState, """
                the sync state of project \(project) is damaged: \(own) stored record(s) of it name no project here (their project id \
                is damaged; their sealed record is kept in this project's compartment); the project works local-only until 'vaultctl \
                repair' mends it
                """)
        }
    }
}
