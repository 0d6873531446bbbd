import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A reader that stops early (`vaultctl audit log | head -1`) ends the command quietly, as it ends
/// git or cat: exit 141, nothing on stderr, the command's work done and recorded. With the daemon
/// serving, the command it runs for the client ends so, and the daemon goes on serving (review 17
/// s11, N-s11-6: the daemon died of SIGPIPE, with no daemon.stop or session.end in its log).
@Suite("vaultctl: a reader that stops after one line (| head -1)", .serialized)
struct ClosedOutputTests {
    typealias Fixture = DaemonCommandTests.Fixture

    /// What the pipe holds: one page (4 KiB on x86_64, 64 KiB where pages are that large).
    static let pipeBytes = max(4096, Int(sysconf(Int32(_SC_PAGESIZE))))

    /// Requests that make the audit log (with --details --json, several hundred bytes an entry)
    /// at least twice as long as the pipe holds.
    static let requestsToFillThePipe = pipeBytes / 256

    /// What the reader got and how the command ended.
    struct Outcome {
        let firstLine: String
        let status: Int32
        let killedBySignal: Bool
        let stderr: String
    }

    /// Runs vaultctl as a shell starts it (SIGPIPE at its default) with its standard output into a
    /// pipe that holds one page: reads the first line, closes the pipe, and waits for the command.
    /// Whatever the command writes past that page is written after the reader has gone.
    static func readFirstLine(_ arguments: [String]) throws -> Outcome {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw CLIError(message: "pipe: \(String(cString: strerror(errno)))") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(ends[1], 1031 /* F_SETPIPE_SZ */, Int32(pipeBytes))
        let errorPath = NSTemporaryDirectory() + "vaultctl-err-\(UUID().uuidString)"
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: errorPath) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["--default-signal=PIPE", CLI.binary] + arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle(fileDescriptor: ends[1], closeOnDealloc: false)
        process.standardError = FileHandle(forWritingAtPath: errorPath)
        do {
            try process.run()
        } catch {
            close(ends[0]); close(ends[1])
            throw error
        }
        close(ends[1])
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while read(ends[0], &byte, 1) == 1, byte != 0x0A { line.append(byte) }
        close(ends[0])
        process.waitUntilExit()
        return Outcome(firstLine: String(decoding: line, as: UTF8.self), status: process.terminationStatus,
                       killedBySignal: process.terminationReason == .uncaughtSignal,
                       stderr: String(decoding: FileManager.default.contents(atPath: errorPath) ?? Data(), as: UTF8.self))
    }

    /// `vaultctl serve` as a shell starts it (SIGPIPE at its default), its standard output into a
    /// pipe whose reader has gone before it writes a line (`vaultctl serve | head -0`).
    static func serveWithoutReader(_ fixture: Fixture, _ options: [String]) throws -> CLI.Running {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw CLIError(message: "pipe: \(String(cString: strerror(errno)))") }
        close(ends[0])
        defer { close(ends[1]) }
        let base = NSTemporaryDirectory() + "vaultctl-serve-\(UUID().uuidString)"
        for path in [base + ".out", base + ".err"] { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["--default-signal=PIPE", CLI.binary, "serve", "--vault", fixture.cli.directory,
                             "--passphrase-file", fixture.cli.passphraseFile] + options
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle(fileDescriptor: ends[1], closeOnDealloc: false)
        process.standardError = FileHandle(forWritingAtPath: base + ".err")
        try process.run()
        let running = CLI.Running(process: process, outputPath: base + ".out", errorPath: base + ".err")
        fixture.daemon = running
        return running
    }

    /// `vaultctl serve` as a shell starts it (SIGPIPE at its default), waiting until it listens.
    static func serve(_ fixture: Fixture) throws -> CLI.Running {
        let running = try CLI.start(["--default-signal=PIPE", CLI.binary, "serve", "--vault", fixture.cli.directory,
                                     "--passphrase-file", fixture.cli.passphraseFile], executable: "/usr/bin/env")
        fixture.daemon = running
        try Fixture.waitForListening(running)
        return running
    }

    static func count(_ action: String, in actions: [String]) -> Int { actions.filter { $0 == action }.count }

    @Test("with the daemon serving, audit log into a pipe closed after one line exits 141 quietly; its one-command session is ended and recorded, the daemon answers the next request, and its stop is recorded")
    func theDaemonOutlivesAReaderThatStops() throws {
        let fixture = try Fixture()
        let daemon = try Self.serve(fixture)
        // Requests through the daemon make the log longer than the pipe holds.
        for _ in 0..<Self.requestsToFillThePipe { #expect(try fixture.client(["compartment", "list"]).status == 0) }
        let whole = try fixture.client(["audit", "log", "--details", "--json"])
        try #require(whole.status == 0 && whole.stdout.utf8.count > 2 * Self.pipeBytes, "the log is \(whole.stdout.utf8.count) bytes")
        let log = try Self.readFirstLine(["audit", "log", "--details", "--json", "--purpose", "read the first entry",
                                          "--vault", fixture.cli.directory])
        #expect(log.firstLine == "[", "\(log.firstLine)")
        #expect(!log.killedBySignal && log.status == 141, "the command ended with \(log.killedBySignal ? "signal " : "")\(log.status)")
        #expect(log.stderr.isEmpty, "\(log.stderr)")
        #expect(daemon.process.isRunning, "the daemon died (status \(daemon.process.isRunning ? 0 : daemon.process.terminationStatus))")

        let next = try fixture.client(["compartment", "list", "--json"])
        #expect(next.status == 0 && next.stdout.contains("\"chart\""), "\(next.stdout) \(next.stderr)")
        let stopped = try fixture.stopDaemon()
        #expect(daemon.process.terminationReason == .exit && stopped.status == 0, "serve ended with \(stopped.status): \(stopped.stderr)")
        #expect(stopped.stderr.contains("stopped; every session ended"), "\(stopped.stderr)")

        let actions = try fixture.actions()
        #expect(Self.count("daemon.start", in: actions) == 1 && Self.count("daemon.stop", in: actions) == 1, "\(actions)")
        #expect(actions.last(where: { $0.hasPrefix("daemon.") }) == "daemon.stop", "\(actions)")
        // The audit log's one-command session (its --purpose) ended as a command's does.
        #expect(Self.count("session.start", in: actions) == 1 && Self.count("session.end", in: actions) == 1, "\(actions)")
        let verified = try fixture.cli.run(["audit", "verify", "--json"], unlock: false)
        #expect(verified.status == 0, "\(verified.stdout) \(verified.stderr)")
    }

    @Test("serve whose own standard output has no reader any more goes on serving, and its stop is recorded")
    func theDaemonOutlivesItsOwnClosedOutput() throws {
        let fixture = try Fixture()
        let daemon = try Self.serveWithoutReader(fixture, ["--address", "127.0.0.1:0"])
        var answer: CLI.Result?
        for _ in 0..<300 where answer == nil && daemon.process.isRunning {
            if FileManager.default.fileExists(atPath: fixture.socketPath) {
                let listed = try fixture.client(["compartment", "list", "--json"])
                if listed.status == 0 { answer = listed }
            }
            if answer == nil { usleep(100_000) }
        }
        #expect(answer?.stdout.contains("\"chart\"") == true,
                "no answer: the daemon \(daemon.process.isRunning ? "is running" : "ended with \(daemon.process.terminationStatus)")")
        let stopped = try fixture.stopDaemon()
        #expect(daemon.process.terminationReason == .exit && stopped.status == 0, "serve ended with \(stopped.status): \(stopped.stderr)")
        let actions = try fixture.actions()
        #expect(actions.last(where: { $0.hasPrefix("daemon.") }) == "daemon.stop", "\(actions)")
    }

    @Test("without a daemon, audit log and get -o - into a pipe closed after one line exit 141 quietly, and every entry they made is signed")
    func aCommandEndsQuietlyWhenItsReaderStops() throws {
        let fixture = try Fixture()
        let unlock = ["--vault", fixture.cli.directory, "--passphrase-file", fixture.cli.passphraseFile]
        for index in 0..<Self.requestsToFillThePipe {
            #expect(try fixture.cli.run(["compartment", "create", "Memos \(index)", "--register", "general"]).status == 0)
        }
        let whole = try fixture.cli.run(["audit", "log", "--details", "--json"])
        try #require(whole.status == 0 && whole.stdout.utf8.count > 2 * Self.pipeBytes, "the log is \(whole.stdout.utf8.count) bytes")
        let log = try Self.readFirstLine(["audit", "log", "--details", "--json"] + unlock)
        #expect(log.firstLine == "[", "\(log.firstLine)")
        #expect(!log.killedBySignal && log.status == 141, "the command ended with \(log.killedBySignal ? "signal " : "")\(log.status)")
        #expect(log.stderr.isEmpty, "\(log.stderr)")
        // A bundle's plaintext (300,000 bytes) to stdout: the reader takes its first "line" and goes.
        let read = try Self.readFirstLine(["get", fixture.bundleID, "-o", "-", "--purpose", "read the visit"] + unlock)
        #expect(!read.killedBySignal && read.status == 141, "get ended with \(read.killedBySignal ? "signal " : "")\(read.status)")
        #expect(read.stderr.isEmpty, "\(read.stderr)")

        let verified = try fixture.cli.run(["audit", "verify", "--json"], unlock: false)
        let report = try JSONSerialization.jsonObject(with: Data(verified.stdout.utf8)) as? [String: Any]
        #expect(verified.status == 0 && report?["unsigned_entries"] as? Int == 0, "\(verified.stdout) \(verified.stderr)")
        let actions = try fixture.actions()
        #expect(Self.count("session.start", in: actions) == 1 && Self.count("session.end", in: actions) == 1, "\(actions)")
    }
}
