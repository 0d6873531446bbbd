import AuditChain
import CryptoVault
import Foundation
import Writing

/// History (issue 15's bar): a real paper's 259,778 single-character edits replayed into one
/// document with an automatic snapshot every 500 characters of change, beside the same history
/// committed to git. The version store (what plays git's role: the snapshots and the text, see
/// `TraceStoreBreakdown`), after `vaultctl compact` (printed beside its size as the replay left it),
/// must be at most git's size after `git gc --aggressive`, any version
/// must restore in under 50 ms, and the last version must be the trace's `endContent` exactly.
///
/// The edits are applied to the text in memory and written to the store at each snapshot point:
/// the `AutoSnapshotService` counts every edit's characters and, when 500 are due, its snapshot
/// writes the document's paragraphs and takes the snapshot in one audited transaction
/// (`replaceDocumentContentAndSnapshot`: only the changed blocks resealed, the stored ones read once). The
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
        // VAULTBENCH_KEEP=1 keeps the vaults and the git repository, to look into them afterwards.
        defer {
            if ProcessInfo.processInfo.environment["VAULTBENCH_KEEP"] == nil { try? FileManager.default.removeItem(atPath: root) } else { print("   kept in \(root)") }
        }
        let git = try GitHistory(in: root + "/git")
        if git == nil { print("   git is not installed: the history is not compared with git") }
        let history = try replay(loaded, vault: root + "/vault", git: git)
        let vaultBytes = DiskUsage.bytes(under: root + "/vault")
        // Each read is audited (a restore names every record of its chain in record.open), so the
        // sampled restores run on a copy: the history's size is the vault as the replay left it.
        try FileManager.default.copyItem(atPath: root + "/vault", toPath: root + "/restores")
        let store = try restoreSampled(history, vault: root + "/restores", trace: loaded)
        try report(store, vaultBytes: vaultBytes, git: git, trace: loaded)
        Benchmark.report("its copy after \(store.restores.count + 1) restores (+record.open)",
                         Double(DiskUsage.bytes(under: root + "/restores") - vaultBytes) / 1024, "KiB more")
        if let git {
            let empty = try emptyVault(at: root + "/empty")
            let replayed = try TraceStoreBreakdown.Measured(history.databasePath, emptyVault: empty)
            // `git gc --aggressive`'s analogue, run on the vault itself (the restores' copy was taken before it),
            // and on a copy of the empty vault, so the floor subtracted is in the same state.
            let compaction = try compact(root + "/vault")
            try FileManager.default.copyItem(atPath: root + "/empty", toPath: root + "/empty-compacted")
            _ = try compact(root + "/empty-compacted")
            let compacted = try TraceStoreBreakdown.Measured(history.databasePath, emptyVault: root + "/empty-compacted/" + Vault.databaseName)
            TraceStoreBreakdown.report(replayed: replayed, compacted: compacted, compaction: compaction, gitBytes: git.size)
        }
    }

    /// `vaultctl compact` on the closed vault at `path`, as the command runs it: unlocked, compacted
    /// (`UnlockedVault.compact()`), the command's checkpoint signed; closed on return.
    static func compact(_ path: String) throws -> VaultCompaction {
        let unlocked = try Vault.open(at: path, journal: AuditLog(), modules: [WritingSchema.module])
            .unlock(with: .passphrase(try SecureBytes(copying: Array("bench passphrase".utf8))))
        let compaction = try unlocked.compact()
        try unlocked.vault.finishCommand()
        return compaction
    }

    /// What the replay left: its versions and where they are.
    struct History {
        let replaySeconds: Double
        let versions: [SnapshotID]
        let project: ProjectID
        let document: NodeID
        let databasePath: String
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

    /// A vault made as the replay's is (the writing schema, one project, one document) and closed:
    /// the floor under any history. Returns its database's path.
    static func emptyVault(at path: String) throws -> String {
        let unlocked = try Vault.create(at: path, passphrase: try SecureBytes(copying: Array("bench passphrase".utf8)),
                                        kdf: .argon2idFloor, journal: AuditLog(), modules: [WritingSchema.module])
        let project = try unlocked.createWritingProject(named: "Trace", register: .fiction, kind: .longForm)
        try unlocked.transaction { tx in _ = try WritingStore(tx).addNode(.scene, titled: "automerge-paper", in: project.id) }
        return unlocked.vault.databasePath
    }

    /// Replays the trace into a new vault at `path` (and git); the vault is closed on return.
    static func replay(_ trace: EditingTrace, vault path: String, git: GitHistory?) throws -> History {
        let unlocked = try Vault.create(at: path, passphrase: try SecureBytes(copying: Array("bench passphrase".utf8)),
                                        kdf: .argon2idFloor, journal: AuditLog(), modules: [WritingSchema.module])
        try AuditBenchmarks.requireDurableCommits(unlocked.vault)
        let project = try unlocked.createWritingProject(named: "Trace", register: .fiction, kind: .longForm)
        let node = try unlocked.transaction { tx in try WritingStore(tx).addNode(.scene, titled: "automerge-paper", in: project.id) }
        let document = ParagraphDocument(trace.startContent)
        var versions: [Snapshot] = []
        let service = AutoSnapshotService(clock: stoppedClock) { node, projectID in
            let snapshot = try unlocked.transaction { tx in
                try WritingStore(tx).replaceDocumentContentAndSnapshot(of: node, in: projectID, with: try document.content()).snapshot
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
        return History(replaySeconds: seconds - ((git?.seconds ?? 0) - gitBefore), versions: versions.map(\.id), project: project.id,
                       document: node.id, databasePath: unlocked.vault.databasePath)
    }

    /// Times the restore of sampled versions (and the last) in the vault at `path`, a copy of the replay's.
    static func restoreSampled(_ history: History, vault path: String, trace: EditingTrace) throws -> StoreFigures {
        let unlocked = try Vault.open(at: path, journal: AuditLog(), modules: [WritingSchema.module])
            .unlock(with: .passphrase(try SecureBytes(copying: Array("bench passphrase".utf8))))
        let versions = history.versions
        let sampled = stride(from: 0, to: versions.count, by: max(1, versions.count / versionsSampled)).map { $0 } + [versions.count - 1]
        let restores = try sampled.map { index in
            1000 * (try Benchmark.seconds {
                _ = try unlocked.transaction { tx in try WritingStore(tx).snapshotContent(versions[index], of: history.document, in: history.project) }
            })
        }
        let last = try unlocked.transaction { tx in try WritingStore(tx).snapshotContent(versions[versions.count - 1], of: history.document, in: history.project) }
        return StoreFigures(replaySeconds: history.replaySeconds, versions: versions.count, restores: restores, sampled: sampled,
                            finalMatches: ParagraphDocument.same(ParagraphDocument.text(of: last), trace.endContent),
                            databasePath: history.databasePath)
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

/// A clock that never moves: only the character rule of `AutoSnapshotPolicy` fires.
let stoppedClock = VaultClock.fractional { 0 }
