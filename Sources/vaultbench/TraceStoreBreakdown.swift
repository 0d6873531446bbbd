import AuditChain
import CryptoVault
import Foundation

/// Where the replayed vault's bytes are (read from the closed vaults with SQLite's `dbstat`): its
/// files, its largest tables and indexes, its audit entries by action, and the verdict. What is set
/// beside git's `.git` is the **version store**: what plays git's role, the writing tables and the
/// sealed records the history added (the snapshots, their groups, their `writing_snapshots` rows and
/// indexes, and the blocks holding the text), in pages. The whole folder is printed beside it, with
/// what it adds: the audit entries the history appended (the auditor's evidence of every seal, open
/// and write, which git has no counterpart for) and the empty vault's floor (the schema's fixed cost).
enum TraceStoreBreakdown {
    static func report(_ databasePath: String, emptyVault: String, folderBytes: Int, gitBytes: Int) throws {
        let folder = (databasePath as NSString).deletingLastPathComponent
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        Benchmark.note("files: " + files.sorted().map { "\($0) \(DiskUsage.bytes(ofFile: folder + "/" + $0) / 1024) KiB" }.joined(separator: ", "))
        let full = try Pages(databasePath), empty = try Pages(emptyVault)
        Benchmark.note("largest tables and indexes: " + full.largest(6).map { "\($0.name) \($0.bytes / 1024) KiB" }.joined(separator: ", ")
                       + "; free pages \(full.freeBytes / 1024) KiB; page size \(full.pageSize)")
        Benchmark.note("audit entries by action: " + full.auditByAction.prefix(5).map {
            "\($0.action) \($0.count) = \($0.bytes / 1024) KiB"
        }.joined(separator: ", "))
        let store = full.bytes(where: isVersionStore) - empty.bytes(where: isVersionStore)
        let snapshots = full.bytes(where: isSnapshotTable) - empty.bytes(where: isSnapshotTable)
        let ratio = { (bytes: Int) in String(format: "%.2f", Double(bytes) / Double(max(gitBytes, 1))) }
        Benchmark.verdict("version store's own bytes vs git", Double(store) / 1024, "KiB", atMost: Double(gitBytes) / 1024)
        Benchmark.note("version store / git = \(ratio(store)): the writing tables and sealed records the history added (pages), of which "
                       + "writing_snapshots and its indexes \(snapshots / 1024) KiB, sealed_records (snapshot groups and keyframes, "
                       + "the blocks' text) and the other writing tables the rest")
        let emptyBytes = DiskUsage.bytes(ofFile: emptyVault)
        let audit = full.auditEntryBytes - empty.auditEntryBytes
        Benchmark.report("beside it: the whole folder (closed), \(ratio(folderBytes)) x git", Double(folderBytes) / 1024, "KiB")
        Benchmark.report("  empty vault (same schema, one project; the floor)", Double(emptyBytes) / 1024, "KiB")
        Benchmark.report("  audit entries the history appended (their bytes)", Double(audit) / 1024, "KiB")
        Benchmark.report("  version store (above)", Double(store) / 1024, "KiB")
        Benchmark.note("the whole folder is not the comparison: its audit log records every access (each record sealed and opened, "
                       + "each write) as the auditor's evidence, which git has no counterpart for, and the empty vault is a fixed cost")
    }

    /// The version store's tables and indexes: the writing model's and the sealed records'.
    static func isVersionStore(_ name: String) -> Bool {
        name.hasPrefix("writing_") || name.hasPrefix("sqlite_autoindex_writing_") || name.contains("sealed_records")
    }

    static func isSnapshotTable(_ name: String) -> Bool {
        name == "writing_snapshots" || name.hasPrefix("sqlite_autoindex_writing_snapshots_") || name.hasPrefix("writing_snapshots_")
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
