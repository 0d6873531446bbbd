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
        // The benchmarks measure the CPU time a run took (CLOCK_*_CPUTIME_ID), which no vault stores.
        "Sources/vaultbench/LeakGuardBenchmarks.swift": "CPU time of a benchmark run",
        "Sources/vaultbench/AuditBenchmarks.swift": "CPU time of a benchmark run",
        // Benchmarks time their own runs (elapsed seconds printed beside a figure, never stored).
        "Sources/vaultbench/Benchmark.swift": "elapsed time of a benchmark run",
        "Sources/vaultbench/BundleBenchmarks.swift": "elapsed time of a benchmark run",
        "Sources/vaultbench/ChannelBenchmarks.swift": "elapsed time of a benchmark run",
        "Sources/vaultbench/ChildProcess.swift": "elapsed time of a benchmark run",
        "Sources/vaultbench/CipherCeiling.swift": "elapsed time of a benchmark run",
        "Sources/vaultbench/PlainTCPBaseline.swift": "elapsed time of a benchmark run",
        "Sources/assistbench/AssistantBench.swift": "elapsed time of a benchmark run",
        "Sources/assistbench/DirectRequest.swift": "elapsed time of a benchmark run",
        // Deadlines carried as ContinuousClock.Instant through a socket or process API (a lifetime,
        // never stored or shown): still to move onto VaultClock.monotonic() (seam notes, issue 12).
        "Sources/Assistant/Transport/ClientSocket.swift": "socket deadlines (ContinuousClock.Instant)",
        "Sources/Assistant/Transport/HTTPClient.swift": "socket deadlines (ContinuousClock.Instant)",
        "Sources/Console/HTTP/LoopbackSocket.swift": "socket deadlines (ContinuousClock.Instant)",
        "Sources/Console/HTTP/HTTPConnection.swift": "socket deadlines (ContinuousClock.Instant)",
        "Sources/Console/Security/ConsoleCredentials.swift": "launch token lifetimes (ContinuousClock.Instant)",
        "Sources/Console/API/AssistantChecks.swift": "pending check lifetimes (ContinuousClock.Instant)",
        "Sources/Console/API/ChangeFeed.swift": "a feed's lifetime (ContinuousClock.Instant)",
        "Sources/Console/API/AssistantRoutes.swift": "a progress line's redraw interval",
        "Sources/vaultctl/Commands/AICommands.swift": "a progress line's redraw interval",
        "Sources/Agents/MCP/MCPConnection.swift": "process deadlines (ContinuousClock.Instant)",
        "Sources/Agents/MCP/MCPClient.swift": "process deadlines (ContinuousClock.Instant)",
        "Sources/Agents/MCP/StdioProcess.swift": "process deadlines (ContinuousClock.Instant)",
    ]

    /// Every way of reading the time this package has used: the wall clock (Date, time, gettimeofday,
    /// clock_gettime, CFAbsoluteTimeGetCurrent) and the monotonic ones (ContinuousClock,
    /// SuspendingClock, DispatchTime, DispatchWallTime, systemUptime, uptime nanoseconds).
    static let readings = [
        #"(?<![A-Za-z0-9_])Date\(\s*\)"#, #"\bDate\.now\b"#, #"(?<![A-Za-z0-9_.])time\("#, #"\bgettimeofday\("#,
        #"\bclock_gettime\("#, #"\bCFAbsoluteTimeGetCurrent\("#, #"\bContinuousClock\b"#, #"\bSuspendingClock\b"#,
        #"\bDispatchTime\b"#, #"\bDispatchWallTime\b"#, #"\bsystemUptime\b"#, #"\buptimeNanoseconds\b"#,
        #"\bmach_absolute_time\b"#,
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
