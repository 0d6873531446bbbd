import CryptoVault
import Foundation
import Writing

/// The peers printed beside the writing model's list, open and search figures: the same titles and
/// block texts in a plain, unencrypted SQLite database (WAL, synchronous=FULL, as the vault), an
/// on-disk SQLite FTS5 index of them, and the same text as one file per document that `grep -r`
/// reads. What sealing, the audit log and the in-memory index cost is the distance between them.
struct WritingPeers {
    let plain: Database
    let files: String
    /// Nil when this SQLite has no FTS5.
    let hasFTS5: Bool

    init(at root: String, documents: Int, content: (Int) throws -> DocumentContent) throws {
        plain = try Database(path: root + "/plain-writing.db", create: true)
        _ = try plain.query("PRAGMA journal_mode = WAL")
        try plain.execute("""
            PRAGMA synchronous = FULL;
            CREATE TABLE nodes (id INTEGER PRIMARY KEY, title TEXT NOT NULL);
            CREATE TABLE blocks (node INTEGER NOT NULL, position INTEGER NOT NULL, text TEXT NOT NULL, PRIMARY KEY (node, position))
            """)
        hasFTS5 = (try? plain.execute("CREATE VIRTUAL TABLE search USING fts5(text, node UNINDEXED)")) != nil
        files = root + "/plain-text"
        try FileManager.default.createDirectory(atPath: files, withIntermediateDirectories: true)
        for index in 0..<documents {
            let blocks = try content(index).blocks
            try plain.writeTransaction {
                try plain.query("INSERT INTO nodes (id, title) VALUES (?, ?)", [.integer(Int64(index)), .text("Scene \(index)")])
                for (position, block) in blocks.enumerated() {
                    try plain.query("INSERT INTO blocks (node, position, text) VALUES (?, ?, ?)",
                                    [.integer(Int64(index)), .integer(Int64(position)), .text(block.text)])
                    if hasFTS5 { try plain.query("INSERT INTO search (text, node) VALUES (?, ?)", [.text(block.text), .integer(Int64(index))]) }
                }
            }
            try Data(blocks.map(\.text).joined(separator: "\n\n").utf8).write(to: URL(fileURLWithPath: files + "/scene-\(index).txt"))
        }
    }

    /// Every title, as the listing reads them (median of 11, ms).
    func list() throws -> Double {
        try Benchmark.median(11) { _ = try plain.query("SELECT id, title FROM nodes ORDER BY id") }
    }

    /// One document's blocks in order (median of 101, ms).
    func open(documents: Int) throws -> Double {
        var next = 0
        return try Benchmark.median(101) {
            _ = try plain.query("SELECT text FROM blocks WHERE node = ? ORDER BY position", [.integer(Int64((next * 7919) % documents))])
            next += 1
        }
    }

    /// The documents FTS5 finds for `query` (FTS5's syntax: a word, "a phrase", a prefix*), median of 11 (ms); nil without FTS5.
    func fts5(_ query: String) throws -> Double? {
        guard hasFTS5 else { return nil }
        return try Benchmark.median(11) { _ = try plain.query("SELECT DISTINCT node FROM search WHERE search MATCH ?", [.text(query)]) }
    }

    /// `grep -rlE pattern` over the files (a new process each time, as a person would run it), median of 5 (ms).
    func grep(_ pattern: String) throws -> Double {
        try Benchmark.median(5) { try ChildProcess.run("/usr/bin/grep", ["-rlE", pattern, files]) }
    }
}
