import AuditChain
import CryptoVault
import Foundation
import Writing

/// History (issue 15's bar): a real paper's 259,778 single-character edits replayed into one
/// document with an automatic snapshot every 500 characters of change, beside the same history
/// committed to git. The store must be at most git's size after `git gc --aggressive`, any version
/// must restore in under 50 ms, and the last version must be the trace's `endContent` exactly.
///
/// The edits are applied to the text in memory and written to the store at each snapshot point:
/// the `AutoSnapshotService` counts every edit's characters and, when 500 are due, its snapshot
/// writes the document's paragraphs (`replaceDocumentContent`, only the changed blocks resealed)
/// and takes the snapshot (`createSnapshot`) in one audited transaction, as vaultctl would. The
/// service's clock stands still, so only the character rule fires (replayed in seconds, the trace
/// has no pauses to measure active editing by).
enum TraceReplayBenchmarks {
    static let trace = "sequential/automerge-paper.json.gz"
    static let versionsSampled = 50

    static func run() throws {
        Benchmark.section("History: \(trace) replayed with an automatic snapshot every \(AutoSnapshotPolicy.characterInterval) characters")
        guard let path = EditingTrace.corpus(trace) else {
            print("   SKIPPED: the corpus is absent (no shared/corpora/editing-traces/\(trace) above \(FileManager.default.currentDirectoryPath))")
            return
        }
        let loaded = try EditingTrace.load(gzipped: path)
        Benchmark.note("\(loaded.patches.count) edits, final text \(loaded.endContent.unicodeScalars.count) characters")
        let root = NSTemporaryDirectory() + "vaultbench-trace-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let git = try GitHistory(in: root + "/git")
        if git == nil { print("   git is not installed: the history is not compared with git") }
        let store = try replay(loaded, vault: root + "/vault", git: git)
        try report(store, vaultBytes: DiskUsage.bytes(under: root + "/vault"), git: git, trace: loaded)
    }

    /// What the replay measured, taken before the vault is closed.
    struct StoreFigures {
        /// The replay without the time spent in git.
        let replaySeconds: Double
        let versions: Int
        let restores: [Double]
        let sampled: [Int]
        let finalMatches: Bool
        let databasePath: String
    }

    /// Replays the trace into a new vault at `path` (and git); the vault is closed on return.
    static func replay(_ trace: EditingTrace, vault path: String, git: GitHistory?) throws -> StoreFigures {
        let unlocked = try Vault.create(at: path, passphrase: try SecureBytes(copying: Array("bench passphrase".utf8)),
                                        kdf: .argon2idFloor, journal: AuditLog(), modules: [WritingSchema.module])
        try AuditBenchmarks.requireDurableCommits(unlocked.vault)
        let project = try unlocked.createWritingProject(named: "Trace", register: .fiction, kind: .longForm)
        let node = try unlocked.transaction { tx in try WritingStore(tx).addNode(.scene, titled: "automerge-paper", in: project.id) }
        let document = ParagraphDocument(trace.startContent)
        var versions: [Snapshot] = []
        let service = AutoSnapshotService(clock: StoppedClock()) { node, projectID in
            let snapshot = try unlocked.transaction { tx in
                let store = WritingStore(tx)
                try store.replaceDocumentContent(of: node, in: projectID, with: try document.content())
                return try store.createSnapshot(of: node, in: projectID)
            }
            versions.append(snapshot)
            try git?.commit(document.text)
            return snapshot
        }
        let gitBefore = git?.seconds ?? 0
        let seconds = try Benchmark.seconds {
            for patch in trace.patches {
                try document.apply(patch)
                try service.edited(node.id, in: project.id, inserted: patch.inserted.count, deleted: patch.deleted)
            }
            // The writer leaves the document: what follows the last 500 characters is kept too.
            try service.switched(to: try unlocked.transaction { tx in
                try WritingStore(tx).addNode(.scene, titled: "next", in: project.id)
            }.id, in: project.id)
        }
        let sampled = stride(from: 0, to: versions.count, by: max(1, versions.count / versionsSampled)).map { $0 } + [versions.count - 1]
        let restores = try sampled.map { index in
            1000 * (try Benchmark.seconds {
                _ = try unlocked.transaction { tx in try WritingStore(tx).snapshotContent(versions[index].id, of: node.id, in: project.id) }
            })
        }
        let last = try unlocked.transaction { tx in try WritingStore(tx).snapshotContent(versions[versions.count - 1].id, of: node.id, in: project.id) }
        return StoreFigures(replaySeconds: seconds - ((git?.seconds ?? 0) - gitBefore), versions: versions.count, restores: restores, sampled: sampled,
                            finalMatches: ParagraphDocument.same(ParagraphDocument.text(of: last), trace.endContent),
                            databasePath: unlocked.vault.databasePath)
    }

    static func report(_ store: StoreFigures, vaultBytes: Int, git: GitHistory?, trace: EditingTrace) throws {
        Benchmark.report("replay: \(trace.patches.count) edits, \(store.versions) versions, store", store.replaySeconds, "s")
        let restores = store.restores.sorted()
        Benchmark.verdict("restore a version (median of \(restores.count) sampled)", restores[restores.count / 2], "ms", atMost: 50)
        Benchmark.verdict("restore a version (slowest of \(restores.count))", restores[restores.count - 1], "ms", atMost: 50)
        if let git {
            let commitSeconds = git.seconds
            let gcSeconds = try Benchmark.seconds { try git.collectGarbage() }
            Benchmark.report("git: \(store.versions) commits (add + commit)", commitSeconds, "s")
            Benchmark.report("git gc --aggressive", gcSeconds, "s")
            let gitBytes = git.size
            Benchmark.report("git .git size after gc --aggressive", Double(gitBytes) / 1024, "KiB")
            Benchmark.verdict("vault size on disk (closed, whole folder)", Double(vaultBytes) / 1024, "KiB", atMost: Double(gitBytes) / 1024)
            Benchmark.note("store / git = \(String(format: "%.2f", Double(vaultBytes) / Double(max(gitBytes, 1))))")
            breakdown(store.databasePath)
            let peer = try Benchmark.median(store.sampled.count) { _ = try git.text(ofVersion: store.sampled.count / 2 + 1) }
            Benchmark.report("git show of a version (peer of a restore, median)", peer, "ms")
        } else {
            Benchmark.report("vault size on disk (closed, whole folder)", Double(vaultBytes) / 1024, "KiB")
        }
        guard store.finalMatches else {
            print("   FAIL: the last version is not the trace's endContent")
            throw EditingTrace.Malformed(description: "the replayed history does not end in the trace's endContent")
        }
        Benchmark.note("PASS: the last version equals the trace's endContent (\(trace.endContent.utf8.count) bytes)")
    }
}

extension TraceReplayBenchmarks {
    /// Where the vault's bytes are: its files, and the database's pages by table and index
    /// (SQLite's `dbstat`, when the library has it), read from the closed vault.
    static func breakdown(_ databasePath: String) {
        let folder = (databasePath as NSString).deletingLastPathComponent
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        Benchmark.note("files: " + files.sorted().map { "\($0) \(DiskUsage.bytes(ofFile: folder + "/" + $0) / 1024) KiB" }.joined(separator: ", "))
        do {
            let database = try Database(path: databasePath, create: false, readOnly: true)
            let rows = try database.query("SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC LIMIT 6")
            let pages = try rows.map { "\(try $0.text("name")) \(try $0.integer("bytes") / 1024) KiB" }
            let free = try database.queryOne("PRAGMA freelist_count")?.integer("freelist_count") ?? 0
            let pageSize = try database.queryOne("PRAGMA page_size")?.integer("page_size") ?? 0
            Benchmark.note("largest tables and indexes: " + pages.joined(separator: ", ") + "; free pages \(free * pageSize / 1024) KiB")
        } catch {
            Benchmark.note("no page breakdown (\(error))")
        }
    }
}

/// A clock that never moves: only the character rule of `AutoSnapshotPolicy` fires.
struct StoppedClock: SnapshotClock {
    func now() -> Duration { .zero }
}
