import AuditChain
import CryptoVault
import Foundation

/// The audit log's figures (issue targets): batch appends ≥ 100,000 entries/s, each batch durable when
/// it returns; one durable append's latency beside a plain SQLite durable insert of a same-sized row;
/// verification ≥ 300,000 entries/s and an inclusion proof < 1 ms at 1,000,000 entries.
enum AuditBenchmarks {
    static let entryCount = 1_000_000
    static let batchSize = 10_000

    static func run() throws {
        Benchmark.section("Audit log (\(entryCount) entries, batches of \(batchSize), synchronous=FULL, WAL)")
        let directory = NSTemporaryDirectory() + "vaultbench-audit-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let log = AuditLog()
        let unlocked = try Vault.create(at: directory + "/vault", passphrase: try SecureBytes(copying: Array("bench passphrase".utf8)),
                                        kdf: .argon2idFloor, journal: log)
        let vault = unlocked.vault
        try requireDurableCommits(vault)
        try batchAppends(log, vault: vault)
        try singleAppendLatency(log, vault: vault, plainDatabase: directory + "/plain.db")
        try verification(vault)
        try proofs(vault)
    }

    static func events(_ count: Int) throws -> [VaultEvent] {
        let compartment = try CompartmentID(bytes: Array(repeating: 7, count: 16))
        return (0..<count).map { VaultEvent(.bundleGet, compartmentID: compartment,
                                     subjectID: Array(repeating: UInt8(truncatingIfNeeded: $0), count: 16)) }
    }

    /// The figures mean "durable" only if the vault's own connection commits with a sync, as every
    /// vaultctl command's does: WAL with synchronous=FULL (2), set by the vault, not by this benchmark.
    static func requireDurableCommits(_ vault: Vault) throws {
        let (journal, synchronous) = try vault.read { database in
            (try database.queryOne("PRAGMA journal_mode")?.text("journal_mode"), try database.queryOne("PRAGMA synchronous")?.integer("synchronous"))
        }
        guard journal == "wal", synchronous == 2 else {
            throw CryptoVaultError(.database, "the vault's connection is not WAL with synchronous=FULL (\(journal ?? "?"), \(synchronous ?? -1))")
        }
    }

    static func batchAppends(_ log: AuditLog, vault: Vault) throws {
        let batch = try events(batchSize)
        let time = try Timing.measure {
            for _ in 0..<(entryCount / batchSize) {
                try vault.writeJournalState { database in try log.append(batch, in: database, vaultID: vault.vaultID, keys: nil) }
            }
        }
        Benchmark.note(time.summary)
        Benchmark.verdict("batch append (checkpoint every 256 entries)", Double(entryCount) / time.wall, "entries/s", atLeast: 100_000)
    }

    static func singleAppendLatency(_ log: AuditLog, vault: Vault, plainDatabase path: String) throws {
        let event = try events(1)
        let entry = try AuditLogReader(vault: vault).lastStoredEntry() ?? []
        let audit = Benchmark.median(101) {
            try? vault.writeJournalState { database in try log.append(event, in: database, vaultID: vault.vaultID, keys: nil) }
        }
        let plain = try Database(path: path, create: true)
        _ = try plain.query("PRAGMA journal_mode = WAL")
        try plain.execute("PRAGMA synchronous = FULL; CREATE TABLE rows (id INTEGER PRIMARY KEY, entry BLOB NOT NULL, hash BLOB NOT NULL)")
        let sqlite = Benchmark.median(101) {
            try? plain.writeTransaction { try plain.query("INSERT INTO rows (entry, hash) VALUES (?, ?)", [.blob(entry), .blob(SHA256.hash(entry))]) }
        }
        Benchmark.report("one durable audit append (own transaction)", audit, "ms")
        Benchmark.report("one durable plain SQLite insert, same row size", sqlite, "ms")
        Benchmark.report("  ratio audit / plain", audit / sqlite, "x")
    }

    static func verification(_ vault: Vault) throws {
        var report: AuditVerifier.Report?
        let time = try Timing.measure { report = try AuditLogReader(vault: vault).verify() }
        guard let report else { return }
        Benchmark.note("verified \(report.entryCount) entries, \(report.checkpointCount) checkpoints, \(report.epochCount) key epochs; \(time.summary)")
        Benchmark.verdict("verify the whole log", Double(report.entryCount) / time.wall, "entries/s", atLeast: 300_000)
    }

    static func proofs(_ vault: Vault) throws {
        let reader = AuditLogReader(vault: vault)
        let size = try reader.size()
        var indices = (0..<101).map { _ in Int.random(in: 0..<size) }.makeIterator()
        let milliseconds = Benchmark.median(101) { _ = try? reader.inclusionProof(entry: indices.next() ?? 0, size: nil) }
        Benchmark.verdict("inclusion proof at \(size) entries", milliseconds, "ms", atMost: 1)
        let consistency = Benchmark.median(21) { _ = try? reader.consistencyProof(from: size / 3, to: size) }
        Benchmark.report("consistency proof \(size / 3) -> \(size)", consistency, "ms")
    }
}

/// Wall time beside the process's CPU time (every thread's), so that a figure taken on a busy machine
/// shows how much of it was waiting: for the disk, or for the other processes.
struct Timing {
    let wall: Double
    let cpu: Double

    var summary: String { String(format: "%.2f s wall, %.2f s CPU", wall, cpu) }

    static func measure(_ body: () throws -> Void) rethrows -> Timing {
        let (wallStart, cpuStart) = (VaultClock.system.monotonic(), processCPUSeconds())
        try body()
        return Timing(wall: VaultClock.system.monotonic() - wallStart, cpu: processCPUSeconds() - cpuStart)
    }

    static func processCPUSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
