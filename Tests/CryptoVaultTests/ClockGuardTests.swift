import Foundation
import Testing
import TestSupport

/// One clock (issue 12): every reading of the time goes through `VaultClock`, which a test replaces,
/// and only VaultClock.swift asks the system. A new `Date()`, `time(`, `ContinuousClock`,
/// `DispatchTime.now()` (or another monotonic reading) elsewhere fails here.
@Suite struct ClockGuardTests {
    static let clockFile = "Sources/CryptoVault/Vault/VaultClock.swift"

    /// Files allowed to read the system's time themselves, each with its reason. This list can only
    /// shrink.
    static let allowed: [String: String] = [
        // The benchmarks measure the CPU time a run took (CLOCK_*_CPUTIME_ID), which no vault stores and
        // VaultClock does not read. Elapsed times and deadlines read VaultClock.monotonic() (MonotonicDeadline).
        "Sources/vaultbench/LeakGuardBenchmarks.swift": "CPU time of a benchmark run (CLOCK_THREAD_CPUTIME_ID)",
        "Sources/vaultbench/AuditBenchmarks.swift": "CPU time of a benchmark run (CLOCK_PROCESS_CPUTIME_ID)",
    ]

    /// Every way of reading the time this package has used: the wall clock (Date, time, gettimeofday,
    /// clock_gettime, CFAbsoluteTimeGetCurrent) and the monotonic ones (ContinuousClock,
    /// SuspendingClock, DispatchTime, DispatchWallTime, systemUptime, uptime nanoseconds), and a bare
    /// `.now` (a clock's instant by type inference: `deadline: .now + timeout` names no clock).
    static let readings = [
        #"(?<![A-Za-z0-9_])Date\(\s*\)"#, #"\bDate\.now\b"#, #"(?<![A-Za-z0-9_.])time\("#, #"\bgettimeofday\("#,
        #"\bclock_gettime\("#, #"\bCFAbsoluteTimeGetCurrent\("#, #"\bContinuousClock\b"#, #"\bSuspendingClock\b"#,
        #"\bDispatchTime\b"#, #"\bDispatchWallTime\b"#, #"\bsystemUptime\b"#, #"\buptimeNanoseconds\b"#,
        #"\bmach_absolute_time\b"#, #"(?<![A-Za-z0-9_)\]])\.now\b(?!\s*\()"#,
    ].joined(separator: "|")

    @Test("no Date(), Date.now, time(), gettimeofday, clock_gettime, ContinuousClock or DispatchTime outside VaultClock.swift (and the listed exceptions)")
    func onlyTheClockReadsTheSystemTime() throws {
        let offenders = try SeamGuardTests.offenders(Self.readings, allowedIn: Set(Self.allowed.keys).union([Self.clockFile]))
        #expect(offenders == [], "read the time through VaultClock (inject one where a test must control it)")
    }

    @Test("the guard sees what it guards: the clock file reads the system time, and each exception still does")
    func theGuardCanFail() throws {
        let found = Set(try SeamGuardTests.offenders(Self.readings).map { String($0.prefix { $0 != ":" }) })
        #expect(found.contains(Self.clockFile), "\(found)")
        for file in Self.allowed.keys { #expect(found.contains(file), "\(file) no longer reads the time: remove it from the list") }
    }
}
