import Appliance
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// While `vaultctl serve` runs for the vault, the commands that need it unlocked run in the daemon
/// (SECURITY.md §10.8): this process sends its command line and hands the daemon its standard
/// streams and working directory, so the command reads and writes them as it would here, and the
/// passphrase is not asked again. A command given a credential option runs here, with that credential.
enum DaemonForwarding {
    /// The commands the daemon runs for a client; any other is refused there.
    static let served: Set<String> = [
        "put", "ls", "rm", "seal", "compartment create", "compartment list", "compartment rotate", "compartment retire",
        "compartment destroy", "compartment rewrap", "egress check", "egress log", "audit log", "audit hash",
        // A backup's key is made by the daemon's vault the first time; replication, restore and
        // sharing reach a paired device with the daemon's device keys.
        "backup", "replicate", "restore", "share", "share revoke", "device rename", "recover push",
        "peers revoke", "peers trust", "peers ping", "audit witness",
        // Sync: the daemon's coordinator hears what a 'sync now' brought (the console's live view).
        "sync now", "sync status", "sync pause", "sync resume", "conflicts",
        // The writing model: in the daemon, a privileged project is read through its sessions.
        "project create", "project list", "project show", "project rename", "project archive", "project register",
        "doc add", "doc list", "doc show", "doc write", "doc move", "doc rm", "doc import", "template use",
        "history", "snapshot create", "snapshot list", "snapshot show", "snapshot restore", "snapshot diff",
        "branch create", "branch list", "branch show", "branch diff", "branch adopt", "branch discard", "branch revert",
        "export", "activity", "project snapshot", "project versions", "project restore",
        // Characters, places, plot beats and snippets (snippet list reads no vault: it runs in the client).
        "entry add", "entry list", "entry show", "entry rm", "snippet insert",
        // Search in the daemon answers from the index it keeps between searches (SECURITY.md §15.4).
        "search",
        // The assistant: a run reads a project (a privileged one through the daemon's sessions) and writes a branch.
        "ai providers add", "ai providers rm", "ai lanes", "ai run", "ai log", "ai allow-local", "ai policy", "ai policy set",
        // An MCP server's command is checked against its audit entry (unlocked) before it is started.
        "ai tools", "ai mcp add", "ai mcp rm",
        // A new launch URL comes from the console running in the daemon.
        "console",
        // (lexicon and template list read no vault: they run in the client. ai providers list|test,
        // ai mcp list, ai tools --no-start, audit export|key|checkpoint|verify|prove|consistency and
        // device open the vault without unlocking it, so ask no passphrase: they run in the client.
        // unlock, passwd, recovery create-key|split ask a credential on purpose (they check or make an
        // unlock method); pair host|join, recover host and recover show or ask a one-time code on the
        // client's terminal: SECURITY.md §10.8 says why each stays in the client.)
    ]
    /// A command may run as long as a local one would; the bound only keeps a lost daemon from holding the client forever.
    static let commandSeconds = 24.0 * 3600

    /// Runs `command` in the daemon serving the vault and returns its exit status, or nil when it
    /// is to run here: not a served command, a credential given, no daemon, or already in the daemon.
    static func forward(_ command: Command, _ parsed: ParsedArguments, arguments: [String]) throws -> ExitCode? {
        guard served.contains(command.path), CommandHost.current == nil, !hasCredential(parsed) else { return nil }
        guard let connection = try connectIfServing(DaemonSocket.path(parsed)) else { return nil }
        InMemoryMode.noteServed(VaultLocation.realDirectory(parsed))
        var request = ControlMessage(["op": "command", "command": command.path])
        request.set("arguments", bytes: Array(arguments.joined(separator: "\u{0}").utf8))
        try connection.sendRequest(request)
        let directory = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { throw CommandError(message: "cannot open the working directory: \(String(cString: strerror(errno)))", exitCode: .ioError) }
        defer { close(directory) }
        try connection.sendDescriptors([STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO, directory])
        let reply = try DaemonClient.checked(try connection.receive())
        return reply.text("exit").flatMap(Int32.init).flatMap(ExitCode.init(rawValue:)) ?? .failure
    }

    /// A connection to the daemon, or nil if none serves the vault (or its socket path cannot be one).
    private static func connectIfServing(_ path: String) throws -> ControlConnection? {
        do {
            return try ControlConnection.connect(to: path, timeoutSeconds: commandSeconds)
        } catch {
            if error.code == .noDaemon || error.code == .socketPathTooLong { return nil }
            throw error
        }
    }

    private static func hasCredential(_ parsed: ParsedArguments) -> Bool {
        parsed.value("--passphrase-file") != nil || parsed.value("--recovery-key-file") != nil || !parsed.allValues("--share-file").isEmpty
    }
}
