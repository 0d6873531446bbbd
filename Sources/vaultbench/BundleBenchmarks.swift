import AuditChain
import CryptoVault
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The EncryptedBundle figures of the issue, each against its target:
///
/// - throughput of `vaultctl seal` / `vaultctl open` against `age` on the same 1 GiB file of random
///   bytes, both run as processes, output to /dev/null, on all cores and on one thread;
/// - peak memory (max RSS) of `vaultctl seal` and `vaultctl open` on a 4 GiB file;
/// - in-process latency of reading the last 1 MiB of a 4 GiB bundle and of rewrapping a stored
///   4 GiB bundle after a key rotation.
///
/// Every file lives in one temporary directory that is removed at the end, even on failure.
struct BundleBenchmarks {
    static let compartment = "Bench"
    static let passphrase = "vaultbench bundle passphrase"
    static let gibibyte = 1 << 30
    static let runs = 3

    let vaultctl: String
    let age: String
    let ageKeygen: String
    let workspace: String
    let cores: Int

    var vaultPath: String { workspace + "/vault" }
    var passphraseFile: String { workspace + "/passphrase" }
    var credentials: [String] { ["--vault", vaultPath, "--passphrase-file", passphraseFile] }

    static func run() throws {
        let tools = try locateTools()
        let workspace = NSTemporaryDirectory() + "vaultbench-bundles-\(getpid())"
        try FileManager.default.createDirectory(atPath: workspace, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: workspace) }
        let bench = BundleBenchmarks(vaultctl: tools.vaultctl, age: tools.age, ageKeygen: tools.ageKeygen,
                                     workspace: workspace, cores: max(1, ProcessInfo.processInfo.activeProcessorCount))
        let needed: UInt64 = 9 << 30
        guard RandomFile.freeSpace(at: workspace) >= needed else {
            throw ChildFailure(description: "the bundle benchmarks need 9 GiB free in \(NSTemporaryDirectory()) (set TMPDIR elsewhere)")
        }
        try bench.makeVault()
        try bench.throughput()
        try bench.memoryAndLatency()
    }

    /// vaultctl from the same release build as this program; age and age-keygen from PATH.
    static func locateTools() throws -> (vaultctl: String, age: String, ageKeygen: String) {
        let own = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let vaultctl = ProcessInfo.processInfo.environment["VAULTCTL_BIN"]
            ?? ((own as NSString).deletingLastPathComponent as NSString).appendingPathComponent("vaultctl")
        guard access(vaultctl, X_OK) == 0 else {
            throw ChildFailure(description: "no vaultctl at \(vaultctl): build it first (swift build -c release --product vaultctl)")
        }
        guard let age = ChildProcess.which("age"), let ageKeygen = ChildProcess.which("age-keygen") else {
            throw ChildFailure(description: "age and age-keygen are needed for the comparison: run scripts/install-deps")
        }
        return (vaultctl, age, ageKeygen)
    }

    /// A vault at the KDF floor (Argon2id m=19 MiB, t=2, p=1) so each vaultctl run unlocks in ~40 ms.
    func makeVault() throws {
        try Data((Self.passphrase + "\n").utf8).write(to: URL(fileURLWithPath: passphraseFile))
        try ChildProcess.run(vaultctl, ["init", "--vault", vaultPath, "--passphrase-file", passphraseFile,
                                        "--kdf-memory-mib", "19", "--kdf-iterations", "2", "--kdf-parallelism", "1"])
        try ChildProcess.run(vaultctl, ["compartment", "create", Self.compartment, "--register", "general"] + credentials)
    }

    // MARK: Throughput against age

    private struct Case {
        let label: String
        let executable: String
        let arguments: [String]
        var best: ChildRun? = nil

        mutating func record(_ run: ChildRun) {
            if best == nil || run.wallSeconds < best!.wallSeconds { best = run }
        }
    }

    func throughput() throws {
        let size = Self.gibibyte
        let plain = workspace + "/random-1GiB"
        let bundle = workspace + "/random-1GiB.vbundle"
        let ageFile = workspace + "/random-1GiB.age"
        let empty = workspace + "/empty"
        defer { for path in [plain, bundle, ageFile, empty] { unlink(path) } }

        let identity = workspace + "/age-identity.txt"
        try ChildProcess.run(ageKeygen, ["-o", identity])
        guard let recipient = try String(contentsOfFile: identity, encoding: .utf8).split(separator: "\n")
            .first(where: { $0.hasPrefix("# public key: ") }).map({ String($0.dropFirst("# public key: ".count)) }) else {
            throw ChildFailure(description: "age-keygen wrote no public key")
        }
        let ageVersion = (try? ChildProcess.output(age, ["--version"]))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"

        try RandomFile.create(plain, size: size)
        try RandomFile.create(empty, size: 0)
        try ChildProcess.run(vaultctl, ["seal", "--compartment", Self.compartment, plain, "-o", bundle] + credentials)
        try ChildProcess.run(age, ["-r", recipient, "-o", ageFile, plain])
        try RandomFile.sync(ageFile)

        let loadBefore = MachineLoad.describe()
        let all = "\(cores)"
        // vaultctl never gets `-o /dev/null`: its file output is written beside the target and renamed
        // over it. Every program writes to standard output, which is /dev/null.
        func seal(_ threads: String) -> [String] { ["seal", "--compartment", Self.compartment, plain, "-o", "-", "--threads", threads] + credentials }
        func open(_ threads: String) -> [String] { ["open", bundle, "-o", "-", "--threads", threads] + credentials }
        var cases = [
            Case(label: "seal  age -r", executable: age, arguments: ["-r", recipient, plain]),
            Case(label: "seal  vaultctl --threads \(all) (all cores)", executable: vaultctl, arguments: seal(all)),
            Case(label: "seal  vaultctl --threads 1 (one thread in all)", executable: vaultctl, arguments: seal("1")),
            Case(label: "open  age -d", executable: age, arguments: ["-d", "-i", identity, ageFile]),
            Case(label: "open  vaultctl --threads \(all) (all cores)", executable: vaultctl, arguments: open(all)),
            Case(label: "open  vaultctl --threads 1 (one thread in all)", executable: vaultctl, arguments: open("1")),
        ]
        // One untimed run of each warms the page cache and the binaries; then the runs interleave so
        // that a disturbance on the machine hits every program alike.
        for item in cases { try ChildProcess.run(item.executable, item.arguments) }
        for _ in 0..<Self.runs {
            for index in cases.indices { cases[index].record(try ChildProcess.run(cases[index].executable, cases[index].arguments)) }
        }
        var fixed = Case(label: "", executable: vaultctl, arguments: ["seal", "--compartment", Self.compartment, empty, "-o", "-"] + credentials)
        for _ in 0..<Self.runs { fixed.record(try ChildProcess.run(vaultctl, fixed.arguments)) }

        Benchmark.section("EncryptedBundle throughput: 1 GiB of random bytes, page cache -> /dev/null, best of \(Self.runs)")
        Benchmark.note("Both programs run as processes on the same file; MB/s = 10^6 bytes of plaintext per second of wall time.")
        Benchmark.note("vaultctl (release build) times include process start and unlocking the vault (Argon2id at the floor,")
        Benchmark.note("m=19 MiB t=2 p=1); age \(ageVersion) with an X25519 recipient includes its start and X25519 unwrap.")
        Benchmark.note("'--threads 1' means one thread in total: it reads, seals or opens, and writes in turn, so vaultctl")
        Benchmark.note("never keeps more than one core busy (see 'cores' below), like age, which runs STREAM serially.")
        Benchmark.note("With N threads, N-1 workers and the calling thread share the chunks; the calling thread also does")
        Benchmark.note("the reads and writes, overlapped with the workers' sealing of the current batch.")
        Benchmark.note("Machine before the runs: \(loadBefore); after: \(MachineLoad.describe()).")
        Benchmark.report("vaultctl fixed cost (start, unlock, empty seal)", fixed.best!.wallSeconds * 1000, "ms")
        for item in cases {
            let run = item.best!
            Benchmark.report(item.label, Double(size) / run.wallSeconds / 1e6,
                             String(format: "MB/s  (%.3f s, %.2f cores)", run.wallSeconds, run.cores))
        }
        let rate = Dictionary(uniqueKeysWithValues: cases.map { ($0.label, Double(size) / $0.best!.wallSeconds) })
        let ageSeal = rate[cases[0].label]!, ageOpen = rate[cases[3].label]!
        Benchmark.verdict("ratio vaultctl/age  seal, all cores", rate[cases[1].label]! / ageSeal, "x", atLeast: 1.3)
        Benchmark.verdict("ratio vaultctl/age  seal, 1 thread", rate[cases[2].label]! / ageSeal, "x", atLeast: 0.8)
        Benchmark.verdict("ratio vaultctl/age  open, all cores", rate[cases[4].label]! / ageOpen, "x", atLeast: 1.3)
        Benchmark.verdict("ratio vaultctl/age  open, 1 thread", rate[cases[5].label]! / ageOpen, "x", atLeast: 0.8)

        // The ceiling: the chunk cipher alone, in memory, on each engine. No pipeline can beat it.
        Benchmark.note("Ceiling: ChaCha20-Poly1305 alone, 64 KiB chunks in memory (no files, no process start, no unlock);")
        Benchmark.note("bundles use \(BulkChaChaPoly.preferredEngine == .openSSL ? "libcrypto" : "libsodium"). vaultctl's seal cannot exceed these ratios to age:")
        var one = 0.0, many = 0.0
        for (engine, name) in [(BulkChaChaPoly.Engine.openSSL, "libcrypto"), (.sodium, "libsodium")] {
            let single = CipherCeiling.sealRate(threads: 1, engine: engine)
            let all = CipherCeiling.sealRate(threads: cores, engine: engine)
            Benchmark.report("  \(name) seal in memory, 1 thread", single / 1e6, String(format: "MB/s  = %.2fx age seal", single / ageSeal))
            Benchmark.report("  \(name) seal in memory, \(cores) threads", all / 1e6, String(format: "MB/s  = %.2fx age seal", all / ageSeal))
            if engine == BulkChaChaPoly.preferredEngine { (one, many) = (single, all) }
        }
        let available = many / one
        Benchmark.report("  cores available ((\(cores) threads) / (1 thread))", available, "of \(cores)")
        if cores > 1 && available < 0.8 * Double(cores) {
            Benchmark.note("WARNING: other processes held the cores during this run (see the CPU pressure above), so the")
            Benchmark.note("all-cores figures and ratios understate vaultctl; run 'make bench' again on an idle machine.")
        }
    }

    // MARK: Memory, range reads and rewrap on 4 GiB

    func memoryAndLatency() throws {
        let size = 4 * Self.gibibyte
        let plain = workspace + "/random-4GiB"
        let small = workspace + "/random-1MiB"
        defer { for path in [plain, small] { unlink(path) } }
        try RandomFile.create(plain, size: size)
        try RandomFile.create(small, size: 1 << 20)

        let all = "\(cores)"
        func seal(_ file: String) -> [String] { ["seal", "--compartment", Self.compartment, file, "-o", "-", "--threads", all] + credentials }
        let sealSmall = try ChildProcess.run(vaultctl, seal(small), samplingMemory: true)
        let sealLarge = try ChildProcess.run(vaultctl, seal(plain), samplingMemory: true)
        let defaultKDF = try peakWithDefaultKDF(sealing: small)

        // Store the 4 GiB file in the vault, in process (the same library vaultctl put uses).
        let unlocked = try Vault.open(at: vaultPath, journal: AuditLog()).unlock(with: .passphrase(try SecureBytes(copying: Array(Self.passphrase.utf8))))
        let stored = try unlocked.put(from: try FileDescriptor.openForReading(plain), compartment: try unlocked.compartment(named: Self.compartment),
                                      metadata: BundleMetadata(name: "random-4GiB", modificationTime: 0))
        let storedPath = unlocked.vault.assetsPath + "/" + stored.idString + ".vbundle"
        guard stored.plaintextLength == UInt64(size), access(storedPath, R_OK) == 0 else {
            throw ChildFailure(description: "the stored 4 GiB bundle is not where expected (\(storedPath))")
        }
        let openLarge = try ChildProcess.run(vaultctl, ["open", storedPath, "-o", "-", "--threads", all] + credentials, samplingMemory: true)

        Benchmark.section("EncryptedBundle peak memory: peak RSS (VmHWM) of the vaultctl process, --threads \(all), output /dev/null")
        Benchmark.note("Includes the Swift runtime, Foundation, SQLite and the unlock (Argon2id m=19 MiB, freed before the")
        Benchmark.note("payload starts); the bundle pipeline itself holds two batches of plaintext and two of ciphertext.")
        Benchmark.report("vaultctl seal 1 MiB file (same vault)", sealSmall.peakRSSMiB, "MiB")
        Benchmark.verdict("vaultctl seal 4 GiB file", sealLarge.peakRSSMiB, "MiB", atMost: 64)
        Benchmark.verdict("vaultctl open 4 GiB bundle", openLarge.peakRSSMiB, "MiB", atMost: 64)
        Benchmark.report("  seal 1 MiB, vault at default KDF (m=64 MiB)", defaultKDF, "MiB   (the unlock alone, not the bundle)")
        Benchmark.report("  (seal 4 GiB throughput, same run)", Double(size) / sealLarge.wallSeconds / 1e6, "MB/s")
        Benchmark.report("  (open 4 GiB throughput, same run)", Double(size) / openLarge.wallSeconds / 1e6, "MB/s")

        try rangeRead(unlocked: unlocked, path: storedPath, plain: plain, size: UInt64(size))
        try rewrap(unlocked: unlocked, bundleID: stored.bundleID)
        try rangeRead(unlocked: unlocked, path: storedPath, plain: plain, size: UInt64(size), report: false)
    }

    /// Peak RSS of sealing `file` with a vault made at the default KDF parameters: the unlock's Argon2id
    /// memory (64 MiB) then dominates, whatever the file size.
    func peakWithDefaultKDF(sealing file: String) throws -> Double {
        let vault = workspace + "/vault-default-kdf"
        defer { try? FileManager.default.removeItem(atPath: vault) }
        let credentials = ["--vault", vault, "--passphrase-file", passphraseFile]
        try ChildProcess.run(vaultctl, ["init"] + credentials)
        try ChildProcess.run(vaultctl, ["compartment", "create", Self.compartment, "--register", "general"] + credentials)
        return try ChildProcess.run(vaultctl, ["seal", "--compartment", Self.compartment, file, "-o", "-"] + credentials,
                                    samplingMemory: true).peakRSSMiB
    }

    /// `EncryptedBundle.open` + `OpenedBundle.read` of the last MiB, from opening the file to the last byte.
    func rangeRead(unlocked: UnlockedVault, path: String, plain: String, size: UInt64, report: Bool = true) throws {
        let range = (size - (1 << 20))..<size
        var received: [UInt8] = []
        func readTail() throws {
            received.removeAll(keepingCapacity: true)
            let opened = try EncryptedBundle.open(try FileDescriptor.openForReading(path), vault: unlocked)
            try opened.read(range) { received += $0 }
        }
        try readTail()
        guard received == (try RandomFile.tail(plain, count: 1 << 20)) else {
            throw ChildFailure(description: "the last MiB read from the bundle differs from the file's last MiB")
        }
        guard report else { return }
        let warm = try Benchmark.median(9, readTail)
        let cold = try Benchmark.median(5) {
            let file = try FileDescriptor.openForReading(path)
            _ = posix_fadvise(file.rawValue, 0, 0, Int32(POSIX_FADV_DONTNEED))
            try readTail()
        }
        Benchmark.section("EncryptedBundle range read and rewrap on a stored 4 GiB bundle, in process, vault already unlocked")
        Benchmark.verdict("open + read last 1 MiB of 4 GiB (median of 9)", warm, "ms", atMost: 20)
        Benchmark.report("  same, file evicted from page cache (median of 5)", cold, "ms   (not a target: disk latency)")
    }

    /// `rotateCompartment` (untimed), then `rewrapStored(in:)` of the one stored 4 GiB bundle (timed),
    /// which rewrites and fsyncs its header, its journal and the database.
    func rewrap(unlocked: UnlockedVault, bundleID: BundleID) throws {
        var samples: [Double] = []
        for _ in 0..<5 {
            let version = try unlocked.rotateCompartment(named: Self.compartment)
            let compartment = try unlocked.compartment(named: Self.compartment)
            let start = VaultClock.system.monotonic()
            let changed = try unlocked.rewrapStored(in: compartment).changed
            samples.append((VaultClock.system.monotonic() - start) * 1000)
            guard changed == 1, try unlocked.storedBundle(bundleID).keyVersion == version else {
                throw ChildFailure(description: "rewrap did not move the bundle to key version \(version)")
            }
        }
        Benchmark.verdict("rewrapStored, one 4 GiB bundle (median of 5)", samples.sorted()[samples.count / 2], "ms", atMost: 50)
    }
}
