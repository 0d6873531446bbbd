import CryptoVault
import Foundation

/// `make bench`: figures measured on this machine, printed for people. The KDF figures are medians
/// of several runs; the bundle figures are checked against the targets (PASS/FAIL), but the
/// program does not fail on a FAIL: timing belongs to benchmarks, not to tests.
///
/// `vaultbench kdf`, `vaultbench bundles`, `vaultbench audit`, `vaultbench session`, `vaultbench leakguard`, `vaultbench channel`,
/// `vaultbench replication`, `vaultbench versions`, `vaultbench records`, `vaultbench writing` (which includes the history
/// replay), `vaultbench trace` (the history replay alone), `vaultbench sync` or `vaultbench projects` (many small projects'
/// sync) runs only the parts named.
print("vaultbench: \(ProcessInfo.processInfo.activeProcessorCount) cores, \(ProcessInfo.processInfo.physicalMemory >> 30) GiB")
let parts = Set(CommandLine.arguments.dropFirst())
do {
    if parts.isEmpty || parts.contains("kdf") {
        try unlockAtDefaults()
        try argon2idCostPerMiB()
        try scryptAtFloor()
    }
    if parts.isEmpty || parts.contains("bundles") {
        try BundleBenchmarks.run()
    }
    if parts.isEmpty || parts.contains("audit") {
        try AuditBenchmarks.run()
    }
    if parts.isEmpty || parts.contains("session") {
        try SessionBenchmarks.run()
    }
    if parts.isEmpty || parts.contains("leakguard") {
        try LeakGuardBenchmarks.run()
    }
    if parts.isEmpty || parts.contains("channel") {
        try ChannelBenchmarks.run()
    }
    if parts.isEmpty || parts.contains("replication") {
        try ReplicationBenchmarks.run()
    }
    if parts.isEmpty || parts.contains("versions") {
        try VersionsBenchmarks.run()
    }
    if parts.isEmpty || parts.contains("records") {
        try SealedRecordBenchmarks.run()
    }
    if parts.isEmpty || parts.contains("writing") {
        try WritingBenchmarks.run()
    }
    if parts.isEmpty || parts.contains("writing") || parts.contains("trace") {
        try TraceReplayBenchmarks.run()
    }
    if parts.isEmpty || parts.contains("sync") {
        try SyncBenchmarks.run()
    }
    if parts.isEmpty || parts.contains("projects") {
        try ManyProjectsBenchmarks.run()
    }
} catch {
    FileHandle.standardError.write(Data("vaultbench: error: \(error)\n".utf8))
    exit(1)
}
