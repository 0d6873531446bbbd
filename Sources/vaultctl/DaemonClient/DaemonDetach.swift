import Appliance
import CryptoVault
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `vaultctl serve --detach` and `--stop` (README, SECURITY.md §10.6). Detaching asks for the
/// passphrase here, in the foreground, then starts this same program again as the daemon, in a
/// session of its own (no terminal: it cannot be stopped by tty output or hang-up), handing it the
/// passphrase through a pipe on its standard input (never argv or the environment). Its output goes
/// to `daemon.log` in the vault directory. This process waits until the daemon listens, prints its
/// pid and exits; a daemon that fails to start (a wrong passphrase) is reported with its exit code.
enum DaemonDetach {
    static let options = [
        Option("--detach", "ask for the passphrase, then run in the background (output in daemon.log in the vault directory) and print the daemon's pid"),
        Option("--stop", "stop the daemon serving this vault (it ends every session)"),
    ]
    /// Set in the detached daemon's environment (it is started in a session of its own).
    static let detachedVariable = "VAULTCTL_DETACHED"
    static let startSeconds = 120.0
    /// glibc's POSIX_SPAWN_SETSID (since 2.26), which the Glibc module does not export (it needs _GNU_SOURCE).
    private static let spawnSetSessionFlag: Int16 = 0x80

    static func start(_ arguments: ParsedArguments) throws {
        guard arguments.value("--recovery-key-file") == nil, arguments.allValues("--share-file").isEmpty else {
            throw UsageError(message: "--detach unlocks with the passphrase (asked here, or --passphrase-file)", usage: arguments.usage)
        }
        let passphrase = try Credentials.credentialPassphrase(arguments)
        let logPath = VaultLocation.directory(arguments) + "/daemon.log"
        let log = try FileDescriptor.openForWriting(logPath, creating: true, mode: 0o600)
        let logStart = lseek(log.rawValue, 0, SEEK_END)
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else { throw CommandError(message: "cannot create a pipe for the daemon", exitCode: .ioError) }
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let pid: pid_t
        do {
            defer { close(pipeEnds[0]) }
            pid = try spawn(childArguments(Array(CommandLine.arguments.dropFirst())), input: pipeEnds[0], output: log.rawValue)
        } catch {
            close(pipeEnds[1])
            throw error
        }
        // The passphrase goes through the pipe and is gone from it once read.
        passphrase.withUnsafeBytes { bytes in
            _ = Glibc.write(pipeEnds[1], bytes.baseAddress, bytes.count)
            _ = Glibc.write(pipeEnds[1], "\n", 1)
        }
        close(pipeEnds[1])
        try waitUntilListening(pid, logPath: logPath, from: UInt64(max(0, logStart)))
        Output.line("\(pid)")
        Output.note("vaultctl serve: running in the background as pid \(pid) (log: \(logPath)); stop it with 'vaultctl serve --stop'")
    }

    /// Starts this program again with `arguments`, in a new session (POSIX_SPAWN_SETSID: no
    /// controlling terminal, so no SIGTTOU, SIGINT or SIGHUP from it), standard input from `input`
    /// and both outputs to `output`.
    private static func spawn(_ arguments: [String], input: Int32, output: Int32) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        posix_spawn_file_actions_adddup2(&actions, input, 0)
        posix_spawn_file_actions_adddup2(&actions, output, 1)
        posix_spawn_file_actions_adddup2(&actions, output, 2)
        // Nothing else this process holds goes to the daemon: a pipe inherited from whoever started
        // `serve --detach` would otherwise stay open for the daemon's life (and its reader wait forever).
        let open = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).compactMap(Int32.init)
        for descriptor in open where descriptor > 2 { posix_spawn_file_actions_addclose(&actions, descriptor) }
        posix_spawnattr_setflags(&attributes, spawnSetSessionFlag)
        var environment = ProcessInfo.processInfo.environment
        environment[detachedVariable] = "1"
        let argv = (["vaultctl"] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, "/proc/self/exe", &actions, &attributes, argv, envp)
        guard status == 0 else {
            throw CommandError(message: "cannot start the daemon: \(String(cString: strerror(status)))", exitCode: .failure)
        }
        return pid
    }

    /// The command line without --detach and without the credential options, plus the passphrase from stdin.
    static func childArguments(_ arguments: [String]) -> [String] {
        var result: [String] = []
        var skipNext = false
        for argument in arguments {
            if skipNext { skipNext = false; continue }
            if argument == "--detach" { continue }
            if argument == "--passphrase-file" { skipNext = true; continue }
            if argument.hasPrefix("--passphrase-file=") { continue }
            result.append(argument)
        }
        return result + ["--passphrase-file", "-"]
    }

    private static func waitUntilListening(_ pid: pid_t, logPath: String, from offset: UInt64) throws {
        let deadline = VaultClock.system.date().addingTimeInterval(startSeconds)
        while VaultClock.system.date() < deadline {
            let output = newOutput(logPath, from: offset)
            if output.contains("vaultctl serve: listening on") { return }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
                let reason = output.split(separator: "\n").last { $0.hasPrefix("vaultctl") } ?? ""
                throw CommandError(message: "the daemon did not start (exit \(code)): \(reason)",
                                   exitCode: ExitCode(rawValue: code) ?? .failure, hint: "see \(logPath)")
            }
            usleep(50_000)
        }
        kill(pid, SIGTERM)
        throw CommandError(message: "the daemon did not start listening within \(Int(startSeconds)) s; it was stopped", exitCode: .failure,
                           hint: "see \(logPath)")
    }

    private static func newOutput(_ path: String, from offset: UInt64) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { return "" }
        defer { try? handle.close() }
        try? handle.seek(toOffset: offset)
        return String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
    }

    /// `serve --stop`: asks the daemon to stop (it checks that the asker is its owner), then waits
    /// until its socket is gone, which it removes last.
    static func stop(_ arguments: ParsedArguments) throws {
        let socket = DaemonSocket.path(arguments)
        let reply = try DaemonClient.ask(arguments, ControlMessage(["op": "daemon.stop"]))
        let pid = reply.text("pid") ?? "?"
        let deadline = VaultClock.system.date().addingTimeInterval(30)
        while FileManager.default.fileExists(atPath: socket) && VaultClock.system.date() < deadline { usleep(50_000) }
        guard !FileManager.default.fileExists(atPath: socket) else {
            throw CommandError(message: "the daemon (pid \(pid)) was asked to stop but still serves after 30 s", exitCode: .failure)
        }
        Output.line("Stopped the daemon (pid \(pid)); every session ended.")
    }
}

extension Credentials {
    /// The passphrase from --passphrase-file, or asked on the terminal.
    static func credentialPassphrase(_ arguments: ParsedArguments) throws -> SecureBytes {
        if let path = arguments.value("--passphrase-file") { return try SecretInput.firstLine(ofFile: path, what: "passphrase") }
        return try SecretInput.prompt("Passphrase: ")
    }
}
