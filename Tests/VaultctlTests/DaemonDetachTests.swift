import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `vaultctl serve --detach` and `--stop` (issue 12): the passphrase is taken in the foreground, the
/// daemon runs in a session of its own with no terminal, and `--stop` ends it and its sessions.
@Suite("vaultctl serve --detach and --stop", .serialized)
struct DaemonDetachTests {
    /// True while `pid` exists and is not a zombie (a detached daemon is reparented, and reaped or not
    /// depending on the container's init).
    static func isAlive(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
        let state = stat.split(separator: ")").last?.split(separator: " ").first
        return state != "Z" && state != "X"
    }

    /// The session id of `pid` (field 6 of /proc/PID/stat).
    static func sessionID(of pid: pid_t) -> pid_t? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let fields = stat.split(separator: ")").last?.split(separator: " ") else { return nil }
        return fields.count > 3 ? pid_t(fields[3]) : nil
    }

    @Test("--detach prints the pid of a daemon that runs in its own session and answers; --stop ends it, recorded as daemon.stop")
    func detachAndStop() throws {
        let fixture = try DaemonCommandTests.Fixture()
        let cli = fixture.cli
        let started = try cli.run(["serve", "--detach"])
        #expect(started.status == 0, "\(started.stderr)")
        let pid = try #require(pid_t(started.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "stdout: \(started.stdout)")
        defer { if Self.isAlive(pid) { kill(pid, SIGKILL) } }
        #expect(Self.isAlive(pid))
        #expect(Self.sessionID(of: pid) == pid, "the daemon leads a session of its own, away from the terminal")
        #expect(started.stderr.contains("running in the background as pid \(pid)"))

        let session = try fixture.client(["session", "start", "--compartment", "chart", "--purpose", "detached"])
        #expect(session.status == 0, "\(session.stderr)")
        let log = try String(contentsOfFile: cli.directory + "/daemon.log", encoding: .utf8)
        #expect(log.contains("listening on"), "\(log)")

        let stopped = try fixture.client(["serve", "--stop"])
        #expect(stopped.status == 0 && stopped.stdout.contains("Stopped the daemon (pid \(pid))"), "\(stopped.stderr)")
        let deadline = Date().addingTimeInterval(10)
        while Self.isAlive(pid) && Date() < deadline { usleep(50_000) }
        #expect(!Self.isAlive(pid))
        let actions = try fixture.actions().filter { $0.hasPrefix("daemon.") || $0.hasPrefix("session.") }
        #expect(actions == ["daemon.start", "session.start", "session.end", "daemon.stop"], "\(actions)")
    }

    @Test("on a real terminal, serve --detach asks the passphrase in the foreground (not echoed), then runs away from the terminal; serve --stop ends it")
    func detachAfterTypingThePassphrase() throws {
        let fixture = try DaemonCommandTests.Fixture()
        let shown = try Terminal.run(["serve", "--detach", "--vault", fixture.cli.directory], typing: [CLIVault.passphrase], seconds: 60)
        // The terminal's run ended (exit 0): the daemon left it, holding none of its streams.
        #expect(shown.status == 0, "\(shown.status) \(shown.stdout) \(shown.stderr)")
        #expect(shown.stdout.contains("assphrase") && !shown.stdout.contains(CLIVault.passphrase), "\(shown.stdout)")
        let pidText = try #require(shown.stdout.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .first { !$0.isEmpty && $0.allSatisfy(\.isNumber) }, "no pid in: \(shown.stdout)")
        let pid = try #require(pid_t(pidText))
        defer { if Self.isAlive(pid) { kill(pid, SIGKILL) } }
        #expect(Self.isAlive(pid) && Self.sessionID(of: pid) == pid, "the daemon leads a session of its own, away from the terminal")
        // It answers without the passphrase, from a client with no terminal of its own.
        let listed = try fixture.client(["session", "list"])
        #expect(listed.status == 0, "\(listed.stderr)")

        let stopped = try fixture.client(["serve", "--stop"])
        #expect(stopped.status == 0 && stopped.stdout.contains("Stopped the daemon (pid \(pid))"), "\(stopped.stderr)")
        let deadline = Date().addingTimeInterval(10)
        while Self.isAlive(pid) && Date() < deadline { usleep(50_000) }
        #expect(!Self.isAlive(pid))
        let actions = try fixture.actions().filter { $0.hasPrefix("daemon.") }
        #expect(actions == ["daemon.start", "daemon.stop"], "\(actions)")
    }

    @Test("--detach with a wrong passphrase fails in the foreground with the daemon's exit code (2), and nothing keeps running")
    func wrongPassphrase() throws {
        let fixture = try DaemonCommandTests.Fixture()
        let wrong = fixture.cli.file("wrong-passphrase")
        try fixture.cli.write(Array("not the passphrase\n".utf8), to: "wrong-passphrase")
        let started = try CLI.run(["serve", "--detach", "--vault", fixture.cli.directory, "--passphrase-file", wrong])
        #expect(started.status == 2 && started.stderr.contains("the daemon did not start"), "\(started.status) \(started.stderr)")
        let listed = try fixture.client(["session", "list"])
        #expect(listed.status == 69, "\(listed.stderr)")
    }

    @Test("--stop with no daemon exits 69")
    func stopWithoutDaemon() throws {
        let fixture = try DaemonCommandTests.Fixture()
        let stopped = try fixture.client(["serve", "--stop"])
        #expect(stopped.status == 69 && stopped.stderr.contains("no daemon"), "\(stopped.status) \(stopped.stderr)")
    }
}
