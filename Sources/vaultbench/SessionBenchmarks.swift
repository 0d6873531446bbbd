import AuditChain
import CryptoVault
import Foundation
import PrivilegedSession

/// Opening a privileged processing session on an unlocked vault: derive the compartment's keys,
/// record `session.start` durably in the audit log. The target is under 5 ms.
enum SessionBenchmarks {
    static func run() throws {
        let root = NSTemporaryDirectory() + "vaultbench-session-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let vault = try Vault.create(at: root + "/vault", passphrase: try SecureBytes(copying: Array("bench passphrase".utf8)),
                                     kdf: .argon2idFloor, journal: AuditLog())
        let chart = try vault.createCompartment(named: "chart", register: .healthcare)
        var sessions: [PrivilegedProcessingSession] = []
        let start = try Benchmark.median(51) {
            sessions.append(try PrivilegedProcessingSession.start(vault: vault, compartment: chart, actor: "bench", purpose: "benchmark"))
        }
        let end = try Benchmark.median(51) { try sessions.removeLast().end() }
        Benchmark.section("Privileged processing session on an unlocked vault (median of 51; each start and end is a durable audit entry)")
        Benchmark.verdict("session start", start, "ms", atMost: 5)
        Benchmark.report("session end (records the counts, wipes the keys)", end, "ms")
    }
}
