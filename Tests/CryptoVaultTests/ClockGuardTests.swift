import Foundation
import Testing
import TestSupport

/// One clock (issue 12): every reading of the time goes through `VaultClock`, which a test replaces,
/// and only VaultClock.swift asks the system. A new `Date()` or `time(` elsewhere fails here.
@Suite struct ClockGuardTests {
    static let clockFile = "Sources/CryptoVault/Vault/VaultClock.swift"

    /// Files allowed to read the system's time themselves, each with its reason. This list can only
    /// shrink.
    static let allowed: [String: String] = [
        // The benchmarks measure the CPU time a run took (CLOCK_*_CPUTIME_ID), which no vault stores.
        "Sources/vaultbench/LeakGuardBenchmarks.swift": "CPU time of a benchmark run",
        "Sources/vaultbench/AuditBenchmarks.swift": "CPU time of a benchmark run",
    ]

    @Test("no Date(), Date.now, time(), gettimeofday or clock_gettime outside VaultClock.swift (and the listed exceptions)")
    func onlyTheClockReadsTheSystemTime() throws {
        let pattern = #"(?<![A-Za-z0-9_])Date\(\s*\)|\bDate\.now\b|(?<![A-Za-z0-9_.])time\(|\bgettimeofday\(|\bclock_gettime\(|\bCFAbsoluteTimeGetCurrent\("#
        let offenders = try SeamGuardTests.offenders(pattern, allowedIn: Set(Self.allowed.keys).union([Self.clockFile]))
        #expect(offenders == [], "read the time through VaultClock (inject one where a test must control it)")
    }

    @Test("the guard sees what it guards: the clock file reads the system time, and each exception still does")
    func theGuardCanFail() throws {
        let pattern = #"(?<![A-Za-z0-9_])Date\(\s*\)|(?<![A-Za-z0-9_.])time\(|\bclock_gettime\("#
        let found = Set(try SeamGuardTests.offenders(pattern).map { String($0.prefix { $0 != ":" }) })
        #expect(found.contains(Self.clockFile), "\(found)")
        for file in Self.allowed.keys { #expect(found.contains(file), "\(file) no longer reads the time: remove it from the list") }
    }
}
