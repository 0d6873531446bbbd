import Foundation
import Testing
import TestSupport
@testable import Sync

/// The sync module's tables each have one owner type (STYLE.md; WritingOwnedSQLTests and
/// OwnedSQLGuardTests do the same for the writing model's and CryptoVault's): SQL naming a `sync_`
/// table appears only in its owner's files (`Owner.swift` and its extensions, `Owner+Topic.swift`)
/// and in the schema that makes it.
@Suite struct SyncOwnedSQLTests {
    static let owners: [String: String] = [
        "sync_records": "VaultSync",
        "sync_conflict_branches": "VaultSync",
        "sync_held_documents": "HeldBases",
        "sync_left_out": "LeftOutIDs",
        "sync_own_floors": "OwnRecordFloor",
        "sync_set_aside": "VaultSync",
        "sync_restore_waits": "RestoreWaits",
        "sync_fork_left_out": "VaultSync",
        "sync_peers": "SyncExchangeStore",
        "sync_shares": "SyncExchangeStore",
        "sync_origins": "SyncExchangeStore",
        "sync_roster": "SyncExchangeStore",
        "sync_peer_vectors": "SyncExchangeStore",
        "sync_forks": "SyncExchangeStore",
        "sync_project_skips": "SyncExchangeStore",
        "sync_project_sources": "SyncExchangeStore",
        "sync_roster_refusals": "SyncExchangeStore",
        "sync_projects_made_here": "SyncExchangeStore",
        "sync_granted_here": "SyncExchangeStore",
        "sync_refusals": "SyncExchangeStore",
        "sync_device_quotas": "SyncExchangeStore",
        "sync_demotions": "SyncExchangeStore",
    ]
    static let schemas = [(SyncSchema.module, "Sync/SyncSchema.swift"), (SyncExchangeSchema.module, "Sync/Exchange/SyncExchangeSchema.swift")]

    /// Each `sync_` table the module's migrations create, with the schema file that creates it.
    static func tables() throws -> [String: String] {
        let create = try NSRegularExpression(pattern: #"CREATE TABLE (sync_\w+)"#)
        var tables: [String: String] = [:]
        for (schema, file) in schemas {
            for migration in schema.migrations {
                for match in create.matches(in: migration.sql, range: NSRange(migration.sql.startIndex..., in: migration.sql)) {
                    if let range = Range(match.range(at: 1), in: migration.sql) { tables[String(migration.sql[range])] = file }
                }
            }
        }
        return tables
    }

    /// Whether `path` is one of `owner`'s files: `…/Owner.swift` or `…/Owner+Something.swift`.
    static func isFile(_ path: String, of owner: String) -> Bool {
        let name = (path as NSString).lastPathComponent
        return name == owner + ".swift" || (name.hasPrefix(owner + "+") && name.hasSuffix(".swift"))
    }

    @Test("every sync table has an owner type, and SQL naming it is only in that type's files and its schema")
    func tablesAreTouchedOnlyByTheirOwners() throws {
        let tables = try Self.tables()
        #expect(Set(tables.keys) == Set(Self.owners.keys), "the guard sees the tables: \(tables.keys.sorted())")
        for (table, schema) in tables.sorted(by: { $0.key < $1.key }) {
            let owner = try #require(Self.owners[table], "add \(table)'s owner to SyncOwnedSQLTests.owners")
            let reach = try NSRegularExpression(pattern: #"\b(FROM|INTO|UPDATE|JOIN|TABLE)\s+"# + table + #"\b"#)
            let files = try PackageFiles.swiftSources().filter { file in
                reach.firstMatch(in: file.text, range: NSRange(file.text.startIndex..., in: file.text)) != nil
            }.map { String($0.path.dropFirst("Sources/".count)) }
            let outside = files.filter { $0 != schema && !Self.isFile($0, of: owner) }
            #expect(outside == [], "\(table) is reached outside \(owner): \(outside)")
            #expect(files.contains { Self.isFile($0, of: owner) }, "\(owner) names \(table)")
        }
    }

    @Test("the guard can fail: a file of another type naming a sync table is not its owner's")
    func theGuardCanFail() {
        #expect(!Self.isFile("Sync/Exchange/SyncExchangeStore.swift", of: "VaultSync"))
        #expect(Self.isFile("Sync/Exchange/VaultSync+Stored.swift", of: "VaultSync"))
        #expect(!Self.isFile("Sync/VaultSyncOther.swift", of: "VaultSync"))
    }
}
