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
///
/// Both states of the store are printed: as the replay left it, and after `vaultctl compact`
/// (`UnlockedVault.compact()`, SQLite's VACUUM), the vault's analogue of the `git gc --aggressive`
/// git's figure is taken after. The verdict sets like beside like: the compacted store beside git
/// after its gc. The figure as replayed is printed above it, never left out.
enum TraceStoreBreakdown {
    /// One state of the replayed vault, beside an empty vault in the same state (the floor).
    struct Measured {
        let pages: Pages
        let empty: Pages
        let folderBytes: Int
        let emptyFileBytes: Int
        /// The folder's files and their sizes, as they were when measured.
        let files: String

        /// The files are read first: the read-only connection that reads the pages adds a -shm file.
        init(_ databasePath: String, emptyVault: String) throws {
            let folder = (databasePath as NSString).deletingLastPathComponent
            folderBytes = DiskUsage.bytes(under: folder)
            emptyFileBytes = DiskUsage.bytes(ofFile: emptyVault)
            files = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
                .map { "\($0) \(DiskUsage.bytes(ofFile: folder + "/" + $0) / 1024) KiB" }.joined(separator: ", ")
            pages = try Pages(databasePath)
            empty = try Pages(emptyVault)
        }

        var versionStore: Int { pages.bytes(where: isVersionStore) - empty.bytes(where: isVersionStore) }
        var snapshots: Int { pages.bytes(where: isSnapshotTable) - empty.bytes(where: isSnapshotTable) }
        var auditEntries: Int { pages.auditEntryBytes - empty.auditEntryBytes }
    }

    static func report(replayed: Measured, compacted: Measured, compaction: VaultCompaction, gitBytes: Int) {
        let ratio = { (bytes: Int) in String(format: "%.2f", Double(bytes) / Double(max(gitBytes, 1))) }
        describe(replayed, as: "as the replay left it")
        Benchmark.report("version store as the replay left it (\(ratio(replayed.versionStore)) x git)", Double(replayed.versionStore) / 1024, "KiB")
        Benchmark.report("vaultctl compact: vault.db before", Double(compaction.bytesBefore) / 1024, "KiB")
        Benchmark.report("vaultctl compact: vault.db after", Double(compaction.bytesAfter) / 1024, "KiB")
        describe(compacted, as: "after vaultctl compact")
        Benchmark.verdict("version store after compact vs git after gc", Double(compacted.versionStore) / 1024, "KiB",
                          atMost: Double(gitBytes) / 1024)
        Benchmark.note("like with like: git's .git is measured after 'git gc --aggressive' repacked it, the store after 'vaultctl compact' "
                       + "(SQLite VACUUM) repacked the vault's pages; the store as the replay left it, before compact, is the figure above")
        Benchmark.note("version store / git = \(ratio(compacted.versionStore)): the writing tables and sealed records the history added (pages), of which "
                       + "writing_snapshots and its indexes \(compacted.snapshots / 1024) KiB, sealed_records (snapshot groups and keyframes, "
                       + "the blocks' text) and the other writing tables the rest")
        for (state, measured) in [("as replayed", replayed), ("compacted", compacted)] {
            Benchmark.report("beside it: whole folder \(state) (\(ratio(measured.folderBytes)) x git)", Double(measured.folderBytes) / 1024, "KiB")
            Benchmark.report("  empty vault (same schema, one project; the floor)", Double(measured.emptyFileBytes) / 1024, "KiB")
            Benchmark.report("  audit entries the history appended (their bytes)", Double(measured.auditEntries) / 1024, "KiB")
            Benchmark.report("  version store (above)", Double(measured.versionStore) / 1024, "KiB")
        }
        Benchmark.note("the whole folder is not the comparison: its audit log records every access (each record sealed and opened, "
                       + "each write) as the auditor's evidence, which git has no counterpart for, and the empty vault is a fixed cost")
    }

    /// Its files, largest tables and indexes, and audit entries by action.
    static func describe(_ measured: Measured, as state: String) {
        Benchmark.note("\(state): files " + measured.files)
        Benchmark.note("\(state): largest tables and indexes " + measured.pages.largest(6).map { "\($0.name) \($0.bytes / 1024) KiB" }.joined(separator: ", ")
                       + "; free pages \(measured.pages.freeBytes / 1024) KiB; unused bytes in used pages \(measured.pages.unusedBytes / 1024) KiB; "
                       + "page size \(measured.pages.pageSize)")
        Benchmark.note("\(state): audit entries by action " + measured.pages.auditByAction.prefix(5).map {
            "\($0.action) \($0.count) = \($0.bytes / 1024) KiB"
        }.joined(separator: ", "))
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
        /// Bytes of used pages that hold nothing (dbstat's `unused`): what rows rewritten in place and
        /// page splits leave, and what a compaction gives back with the free pages.
        let unusedBytes: Int
        let pageSize: Int
        let auditEntryBytes: Int
        let auditByAction: [(action: String, count: Int, bytes: Int)]

        init(_ path: String) throws {
            let database = try Database(path: path, create: false, readOnly: true)
            byName = try database.query("SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC").map {
                (try $0.text("name"), Int(try $0.integer("bytes")))
            }
            unusedBytes = Int(try database.queryOne("SELECT sum(unused) AS unused FROM dbstat")?.integer("unused") ?? 0)
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
