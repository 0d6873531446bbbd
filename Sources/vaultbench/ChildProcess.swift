import CryptoVault
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One finished child process: its wall-clock time, the CPU time the kernel accounted to it alone
/// (`wait4` returns the rusage of exactly the child it reaped), and optionally its peak memory.
struct ChildRun {
    let wallSeconds: Double
    let userSeconds: Double
    let systemSeconds: Double
    /// Peak resident set size of the program's own address space (VmHWM), in KiB, when sampled.
    ///
    /// Not `ru_maxrss`: posix_spawn starts the child in the parent's address space (vfork), and exec
    /// folds that address space's high-water mark into the child's ru_maxrss, so a child of a big
    /// parent would report the parent's peak. VmHWM in /proc/PID/status belongs to the new program
    /// alone; it only grows, and is sampled every millisecond until the program exits.
    let peakRSSKiB: Int?

    var cpuSeconds: Double { userSeconds + systemSeconds }
    /// How many cores the run kept busy on average.
    var cores: Double { cpuSeconds / wallSeconds }
    var peakRSSMiB: Double { Double(peakRSSKiB ?? 0) / 1024 }
}

struct ChildFailure: Error, CustomStringConvertible {
    let description: String
}

/// Runs programs the way a shell would, `program args < stdin > stdout 2> (captured)`, and measures them.
enum ChildProcess {
    /// Runs `executable` with `arguments`; standard input and output are the given paths. Throws, with
    /// the program's standard error, unless it exits with status 0.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], stdin: String = "/dev/null",
                    stdout: String = "/dev/null", samplingMemory: Bool = false) throws -> ChildRun {
        let errorPath = NSTemporaryDirectory() + "vaultbench-stderr-\(getpid())-\(UUID().uuidString)"
        defer { unlink(errorPath) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdin, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }

        var pid: pid_t = 0
        let start = VaultClock.system.monotonic()
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw ChildFailure(description: "cannot start \(executable): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        var usage = rusage()
        var peak: Int?
        while true {
            if samplingMemory, let sample = highWaterMarkKiB(of: pid) { peak = max(peak ?? 0, sample) }
            let reaped = wait4(pid, &status, samplingMemory ? WNOHANG : 0, &usage)
            if reaped == pid { break }
            if reaped < 0 && errno != EINTR { throw ChildFailure(description: "wait4 failed: \(String(cString: strerror(errno)))") }
            if reaped == 0 { usleep(1000) }
        }
        let wall = VaultClock.system.monotonic() - start

        let exited = status & 0x7f == 0
        let code = (status >> 8) & 0xff
        guard exited && code == 0 else {
            let message = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
            let how = exited ? "exited with status \(code)" : "was killed by signal \(status & 0x7f)"
            throw ChildFailure(description: "\(([executable] + arguments).joined(separator: " ")) \(how): \(message)")
        }
        return ChildRun(wallSeconds: wall,
                        userSeconds: Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6,
                        systemSeconds: Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6,
                        peakRSSKiB: peak)
    }

    /// VmHWM of a running process, in KiB; nil once it has exited (or if /proc cannot be read).
    static func highWaterMarkKiB(of pid: pid_t) -> Int? {
        guard let status = readProcFile("/proc/\(pid)/status"),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return nil }
        return Int(line.dropFirst("VmHWM:".count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "")
    }

    /// A /proc file (its size is reported as 0, so it is read until the end, not by size).
    static func readProcFile(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Runs a program and returns what it wrote to standard output.
    static func output(_ executable: String, _ arguments: [String]) throws -> String {
        let outputPath = NSTemporaryDirectory() + "vaultbench-stdout-\(getpid())-\(UUID().uuidString)"
        defer { unlink(outputPath) }
        try run(executable, arguments, stdout: outputPath)
        return (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    }

    /// The absolute path of `name` on PATH, or nil.
    static func which(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { access($0, X_OK) == 0 }
    }
}

/// How busy the machine is: the figures compare programs run side by side, but other processes
/// competing for the cores lower every absolute figure and blur the ratios.
enum MachineLoad {
    static func describe() -> String {
        let load = ChildProcess.readProcFile("/proc/loadavg")?.split(separator: " ").first.map(String.init) ?? "?"
        let pressure = ChildProcess.readProcFile("/proc/pressure/cpu")?
            .split(separator: "\n").first?.split(separator: " ").first { $0.hasPrefix("avg10=") }?.dropFirst("avg10=".count)
        return "load average (1 min) \(load)" + (pressure.map { ", CPU pressure (10 s) \($0)%" } ?? "")
    }
}
