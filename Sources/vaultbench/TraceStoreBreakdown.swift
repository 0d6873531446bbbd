import AuditChain
import CryptoVault
import Foundation

/// Where the replayed vault's bytes are (read from the closed vaults with SQLite's `dbstat`): its
/// files, its largest tables and indexes, its audit entries by action, and what the history added
/// over an empty vault made the same way, the whole-folder figure's floor. The history's own bytes
/// (the writing tables and sealed records it added, and the audit entries it appended) are set
/// beside git's, as the whole folder is.
enum TraceStoreBreakdown {
    static func report(_ databasePath: String, emptyVault: String, gitBytes: Int) throws {
        let folder = (databasePath as NSString).deletingLastPathComponent
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        Benchmark.note("files: " + files.sorted().map { "\($0) \(DiskUsage.bytes(ofFile: folder + "/" + $0) / 1024) KiB" }.joined(separator: ", "))
        let full = try Pages(databasePath), empty = try Pages(emptyVault)
        Benchmark.note("largest tables and indexes: " + full.largest(6).map { "\($0.name) \($0.bytes / 1024) KiB" }.joined(separator: ", ")
                       + "; free pages \(full.freeBytes / 1024) KiB; page size \(full.pageSize)")
        Benchmark.note("audit entries by action: " + full.auditByAction.prefix(5).map {
            "\($0.action) \($0.count) = \($0.bytes / 1024) KiB"
        }.joined(separator: ", "))
        let emptyBytes = DiskUsage.bytes(ofFile: emptyVault)
        Benchmark.report("empty vault (same schema, one project; the floor)", Double(emptyBytes) / 1024, "KiB")
        let added = DiskUsage.bytes(ofFile: databasePath) - emptyBytes
        Benchmark.report("added by the history (whole folder − empty vault)", Double(added) / 1024, "KiB")
        let writing = full.bytes { $0.hasPrefix("writing_") || $0.hasPrefix("sqlite_autoindex_writing_") || $0.contains("sealed_records") }
            - empty.bytes { $0.hasPrefix("writing_") || $0.hasPrefix("sqlite_autoindex_writing_") || $0.contains("sealed_records") }
        let audit = full.auditEntryBytes - empty.auditEntryBytes
        Benchmark.report("  writing tables + sealed records added (pages)", Double(writing) / 1024, "KiB")
        Benchmark.report("  audit entries appended (their bytes)", Double(audit) / 1024, "KiB")
        Benchmark.verdict("history's own bytes (the two above)", Double(writing + audit) / 1024, "KiB", atMost: Double(gitBytes) / 1024)
        Benchmark.note("history's own / git = \(String(format: "%.2f", Double(writing + audit) / Double(max(gitBytes, 1))))")
    }

    /// One database's pages by table and index, and its audit entries.
    struct Pages {
        let byName: [(name: String, bytes: Int)]
        let freeBytes: Int
        let pageSize: Int
        let auditEntryBytes: Int
        let auditByAction: [(action: String, count: Int, bytes: Int)]

        init(_ path: String) throws {
            let database = try Database(path: path, create: false, readOnly: true)
            byName = try database.query("SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC").map {
                (try $0.text("name"), Int(try $0.integer("bytes")))
            }
            pageSize = Int(try database.queryOne("PRAGMA page_size")?.integer("page_size") ?? 0)
            freeBytes = Int(try database.queryOne("PRAGMA freelist_count")?.integer("freelist_count") ?? 0) * pageSize
            var actions: [String: (count: Int, bytes: Int)] = [:]
            // The log's table is read through its owner (AuditChain), as OwnedSQLGuardTests requires.
            try AuditLogReader.forEachEncodedEntry(in: database) { entry in
                let action = (try? AuditEntry(decoding: Array(entry)))?.action ?? "?"
                actions[action, default: (0, 0)].count += 1
                actions[action, default: (0, 0)].bytes += entry.count
            }
            auditByAction = actions.map { ($0.key, $0.value.count, $0.value.bytes) }.sorted { $0.bytes > $1.bytes }
            auditEntryBytes = auditByAction.reduce(0) { $0 + $1.bytes }
        }

        func largest(_ count: Int) -> ArraySlice<(name: String, bytes: Int)> { byName.prefix(count) }

        func bytes(where included: (String) -> Bool) -> Int {
            byName.filter { included($0.name) }.reduce(0) { $0 + $1.bytes }
        }
    }
}
