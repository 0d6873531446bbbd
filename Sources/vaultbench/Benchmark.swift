import CryptoVault
import Foundation

/// Timing and printing helpers shared by every benchmark.
enum Benchmark {
    static func median(_ runs: Int, _ body: () throws -> Void) rethrows -> Double {
        var samples: [Double] = []
        for _ in 0..<runs {
            let start = VaultClock.system.monotonic()
            try body()
            samples.append((VaultClock.system.monotonic() - start) * 1000)
        }
        return samples.sorted()[samples.count / 2]
    }

    /// The wall-clock seconds one run of `body` takes.
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = VaultClock.system.monotonic()
        try body()
        return VaultClock.system.monotonic() - start
    }

    /// The CPU seconds this thread has used: unlike wall time, what others running on the machine
    /// take does not count (a loaded machine stretches the wall-clock figures, not this one).
    static func threadCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who(rawValue: 1).rawValue, &usage)  // RUSAGE_THREAD: the Glibc module leaves out the GNU name
        let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        return user + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }

    static func report(_ name: String, _ value: Double, _ unit: String) {
        print("\(name.padding(toLength: 52, withPad: " ", startingAt: 0)) \(String(format: "%10.2f", value)) \(unit)")
    }

    /// A figure checked against a target: `value` must be at least (or at most) `target`.
    static func verdict(_ name: String, _ value: Double, _ unit: String, atLeast target: Double) {
        report(name, value, "\(unit)   target >= \(format(target)) \(unit)   \(value >= target ? "PASS" : "FAIL")")
    }

    static func verdict(_ name: String, _ value: Double, _ unit: String, atMost target: Double) {
        report(name, value, "\(unit)   target <= \(format(target)) \(unit)   \(value <= target ? "PASS" : "FAIL")")
    }

    static func section(_ title: String) {
        print("")
        print("== \(title)")
    }

    static func note(_ text: String) {
        print("   \(text)")
    }

    static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.2f", value)
    }
}
