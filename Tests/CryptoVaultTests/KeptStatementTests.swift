@testable import CryptoVault
import Foundation
import Testing

/// `Database` keeps the statements of `query`, `forEachRow` and `forEachRawRow`, and those `prepare`
/// hands out once released, prepared between calls. Kept, a statement must still behave as a fresh one: new values bound each time, the same
/// SQL run inside its own row loop, a schema change seen, no read snapshot held between calls, and
/// the connection closed when the database is released.
@Suite("Database: kept statements behave as fresh ones")
struct KeptStatementTests {
    static func database() throws -> (Database, String) {
        let directory = NSTemporaryDirectory() + "kept-statements-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let database = try Database(path: directory + "/test.db", create: true)
        _ = try database.query("PRAGMA journal_mode = WAL")
        try database.execute("CREATE TABLE t (x INTEGER NOT NULL); INSERT INTO t VALUES (1), (2), (3)")
        return (database, directory)
    }

    @Test("a query run again binds its new values and sees rows written since")
    func rebindsAndSeesNewRows() throws {
        let (database, directory) = try Self.database()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let sql = "SELECT x FROM t WHERE x >= ? ORDER BY x"
        #expect(try database.query(sql, [.integer(2)]).map { try $0.integer("x") } == [2, 3])
        #expect(try database.query(sql, [.integer(3)]).map { try $0.integer("x") } == [3])
        try database.query("INSERT INTO t VALUES (?)", [.integer(4)])
        try database.query("INSERT INTO t VALUES (?)", [.integer(5)])
        #expect(try database.query(sql, [.integer(3)]).map { try $0.integer("x") } == [3, 4, 5])
    }

    @Test("the same SQL run inside its own row loop gets a statement of its own")
    func sameSQLNested() throws {
        let (database, directory) = try Self.database()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let sql = "SELECT x FROM t ORDER BY x"
        var pairs: [[Int64]] = []
        try database.forEachRawRow(sql) { outer in
            let x = outer.integer(at: 0)
            try database.forEachRawRow(sql) { inner in pairs.append([x, inner.integer(at: 0)]) }
        }
        #expect(pairs.count == 9 && pairs.first == [1, 1] && pairs.last == [3, 3], "\(pairs)")
        #expect(try database.query(sql).count == 3, "both statements still work afterwards")
    }

    @Test("a kept statement sees a column added since it was prepared")
    func seesSchemaChange() throws {
        let (database, directory) = try Self.database()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try database.queryOne("SELECT * FROM t")?["y"] == .null)
        try database.execute("ALTER TABLE t ADD COLUMN y TEXT NOT NULL DEFAULT 'added'")
        #expect(try database.queryOne("SELECT * FROM t")?["y"] == .text("added"))
    }

    @Test("a kept statement holds no read snapshot: another connection can truncate the log after a query, even one that stopped early")
    func holdsNoSnapshot() throws {
        let (database, directory) = try Self.database()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        struct Stop: Error {}
        _ = try database.query("SELECT x FROM t")
        #expect(throws: Stop.self) { try database.forEachRawRow("SELECT x FROM t ORDER BY x") { _ in throw Stop() } }
        let other = try Database(path: directory + "/test.db", create: false)
        try other.query("INSERT INTO t VALUES (?)", [.integer(9)])
        let checkpoint = try #require(try other.queryOne("PRAGMA wal_checkpoint(TRUNCATE)"))
        #expect(try checkpoint.integer("busy") == 0, "no reader left open by the kept statements")
    }

    @Test("a prepared statement, once released, is kept for the next prepare of its SQL (and query), with no value left bound")
    func preparedStatementKeptWithoutBindings() throws {
        let (database, directory) = try Self.database()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let sql = "SELECT ?1 AS v"
        do {
            let statement = try database.prepare(sql)
            #expect(try statement.run([.text("secret")]).first?["v"] == .text("secret"))
            try statement.keepBound(.text("kept secret"), at: 1)
        }
        #expect(try database.prepare(sql).run([]).first?["v"] == .null, "nothing bound before survives the release")
        #expect(try database.query(sql).first?["v"] == .null, "nor in the same kept statement run by query")
        #expect(try database.query(sql, [.integer(7)]).first?["v"] == .integer(7))
    }

    @Test("two prepared statements of one SQL at once each work; one is kept after both are released")
    func twoPreparedAtOnce() throws {
        let (database, directory) = try Self.database()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let sql = "SELECT x FROM t WHERE x >= ? ORDER BY x"
        do {
            let first = try database.prepare(sql), second = try database.prepare(sql)
            var pairs: [[Int64]] = []
            try first.forEachRawRow([.integer(2)]) { outer in
                let x = outer.integer(at: 0)
                try second.forEachRawRow([.integer(3)]) { inner in pairs.append([x, inner.integer(at: 0)]) }
            }
            #expect(pairs == [[2, 3], [3, 3]])
        }
        #expect(try database.query(sql, [.integer(1)]).count == 3, "the one kept still works")
    }

    @Test("a database with kept statements is released, and its connection closed, when nothing holds it")
    func releasedWithKeptStatements() throws {
        weak var released: Database?
        let directory: String
        do {
            let (database, made) = try Self.database()
            directory = made
            _ = try database.query("SELECT x FROM t")
            try database.forEachRow("SELECT x FROM t") { _ in }
            _ = try database.prepare("SELECT count(*) FROM t").run([])
            released = database
        }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(released == nil, "a kept statement must not keep its database alive")
    }
}
