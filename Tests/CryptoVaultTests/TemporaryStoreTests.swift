@testable import CryptoVault
import Foundation
import Testing
import TestSupport

/// `temp_store = MEMORY` on every connection (SECURITY.md §4.1, §5): SQLite's temporary files
/// (a sort or a temporary b-tree past the cache, a statement journal past 64 KiB, a temporary
/// table) would otherwise be unlinked files in /var/tmp or $TMPDIR, holding pieces of the rows they
/// sort: sealed records, clear columns, audit entries, or the text a search reads.
@Suite("Temporary store: SQLite's temporary files stay in memory on every connection")
struct TemporaryStoreTests {
    static func temporaryStore(_ database: Database) throws -> Int64? {
        try database.queryOne("PRAGMA temp_store")?.integer("temp_store")
    }

    /// SQLite's temporary files open at this moment in this process. SQLite names them `etilqs_…`
    /// and unlinks them as soon as they are open, so they show only as the process's descriptors
    /// ("/var/tmp/etilqs_… (deleted)"), never in a folder listing.
    static func openSQLiteTemporaryFiles() -> [String] {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0) }
            .filter { $0.contains("etilqs_") }
    }

    /// Sorts 8 MiB of rows by a column without an index (four times SQLite's default 2 MiB cache, so
    /// the sort spills), and returns the SQLite temporary files open while the sorted rows are read.
    static func temporaryFilesOfABigSort(_ database: Database) throws -> [String] {
        try database.execute("CREATE TABLE IF NOT EXISTS rows (id INTEGER PRIMARY KEY, value BLOB NOT NULL)")
        try database.writeTransaction {
            try database.execute("""
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 16384)
                INSERT INTO rows (value) SELECT randomblob(512) FROM n
                """)
        }
        var seen: [String]?
        try database.forEachRow("SELECT value FROM rows ORDER BY value") { _ in
            if seen == nil { seen = openSQLiteTemporaryFiles() }
        }
        return seen ?? []
    }

    @Test("the vault's connection, a read-only one and a scratch one in memory all read temp_store 2 (MEMORY)")
    func everyConnectionKeepsItsTemporaryFilesInMemory() throws {
        let vault = try AuditedVault()
        #expect(try vault.vault.withDatabase { try Self.temporaryStore($0) } == 2)
        let readOnly = try Vault.openReadOnly(at: vault.directory)
        #expect(try readOnly.withDatabase { try Self.temporaryStore($0) } == 2)
        #expect(try Self.temporaryStore(Database(path: ":memory:", create: true)) == 2)
        #expect(try Self.temporaryStore(Database(path: vault.vault.databasePath, create: false, readOnly: true)) == 2)
    }

    @Test("a sort bigger than the cache opens no temporary file; the same sort at SQLite's default does (so this can fail)")
    func aBigSortWritesNoTemporaryFile() throws {
        let folder = NSTemporaryDirectory() + "temp-store-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }

        let project = try Database(path: folder + "/project.db", create: true)
        #expect(try Self.temporaryFilesOfABigSort(project) == [], "a temporary file was opened at temp_store MEMORY")

        let atDefault = try Database(path: folder + "/default.db", create: true)
        try atDefault.execute("PRAGMA temp_store = DEFAULT")
        #expect(try Self.temporaryStore(atDefault) == 0)
        let spilled = try Self.temporaryFilesOfABigSort(atDefault)
        #expect(!spilled.isEmpty, "the same sort at SQLite's default is expected to spill to a temporary file")
    }
}
