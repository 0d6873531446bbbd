import Foundation
import CryptoVault
import Writing

/// Whether a vault's writing store can be opened at all (SECURITY.md §19.10): each table of the
/// modules `writing` and `sync` that the vault's `module_migrations` rows say it has is there, with
/// the columns its migrations make, and can be read to its end. A store that fails this is not
/// local-only (that is one project's change records, §19.5): nothing of it can be trusted, and the
/// command line and the daemon work on a copy in memory (`InMemoryStore`) until it is repaired.
public enum WritingStoreHealth {
    /// What is wrong with the store of the database at `path`, or nil when nothing is (or when the
    /// file is no vault's: the ordinary open says what then). Only reads.
    public static func problem(inDatabaseAt path: String) -> String? {
        // A write-ahead log with frames in it means a writer is at work or the folder was copied
        // mid-write: opening it here (read-write) would checkpoint it on close, changing what
        // `audit verify --read-only` must leave as it is; the vault's own open says what it is.
        let writeAhead = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
        guard writeAhead == 0 else { return nil }
        guard let database = try? Database(path: path, create: false, readOnly: false),
              let applied = try? AppliedModuleMigrations.modules(in: database) else { return nil }
        guard let reference = try? WritingStoreReset.reference() else { return nil }
        let findings = (try? database.query("PRAGMA quick_check(\(VaultIntegrity.findingLimit))").compactMap { try? $0.text("quick_check") }) ?? []
        if findings != ["ok"] {
            // Anything but damaged rows (a damaged page, a cell) is the vault's own open's to say.
            guard let rows = damagedRows(findings) else { return nil }
            let store = Set(reference.flatMap { $0.tables.map(\.name) })
            // Damaged rows of the sync module's tables that each name a project here are those
            // projects' sync state (local-only, `vaultctl repair` mends), not the store's: the owner's
            // documents, unsynced words included, stay readable (review 17 s9, N-s9-6, for stored
            // change records; closing note s10 for the other tables).
            // So is a row of `writing_projects` past its CHECKs (a kind, an id's length): that project's
            // damage alone (`DamagedProjectRow`, review 17 s14), which `vaultctl repair` mends.
            // So is a row of another writing table past its CHECKs whose project is here
            // (`DamagedWritingRow`, reviewer15's R15-1); one naming no project stays the store's.
            let projectsOwn = VaultSync.DamagedRows.projectsOwn(in: database).union([DamagedProjectRow.table])
                .union(DamagedWritingRow.tablesOwnedByProjects(in: database))
            if let first = rows.first(where: { store.contains($0.table) && !projectsOwn.contains($0.table) }) {
                return "the table \(first.table) holds a damaged row (\(first.finding))"
            }
        }
        for (module, tables) in reference where applied.filter({ $0 == module.module }).count == module.migrations.count {
            for (table, columns) in tables {
                let found = (try? database.query("PRAGMA table_info(\"\(table)\")").map { try $0.text("name") }) ?? []
                if found.isEmpty { return "the table \(table) is missing" }
                if found != columns { return "the table \(table) does not have the columns its migrations made" }
                do { _ = try database.query("SELECT count(*) AS rows FROM \"\(table)\"") } catch {
                    return "the table \(table) cannot be read (\(Self.code(of: error)))"
                }
            }
        }
        return nil
    }

    /// A row of the store's tables that breaks a CHECK or NOT NULL constraint (attack review s8, F18:
    /// a flipped bit in a counter or a position) leaves the store unopenable, not the vault: the vault
    /// opens (`ModuleSchema.mendsDamagedRows`), and the store works in memory until `repair --from`.
    /// Each finding with the table it names; nil when any finding names no table (a damaged page or
    /// cell: the vault's own open refuses that). A damaged row of another table is the vault's open's
    /// to judge: the exchange's is local-only (`SyncExchangeHealth`), a core table's refuses the vault.
    static func damagedRows(_ findings: [String]) -> [(finding: String, table: String)]? {
        guard !findings.isEmpty, findings.count < VaultIntegrity.findingLimit else { return nil }
        var rows: [(finding: String, table: String)] = []
        for finding in findings {
            guard let table = VaultIntegrity.damagedRowTable(finding) else { return nil }
            rows.append((finding, table))
        }
        return rows
    }

    static func code(of error: Error) -> String {
        (error as? CryptoVaultError)?.code.rawValue ?? "unreadable"
    }
}
