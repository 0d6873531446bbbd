import Appliance
import Console
import CryptoVault
import PrivilegedSession
import Synchronization

/// `serve --console [--console-port N]`: the console beside the daemon, sharing its sessions; its
/// one-time launch URL is printed where the daemon's log goes (the terminal, or daemon.log, mode
/// 0600, with --detach).
enum ConsoleLaunch {
    static let options = [
        Option("--console", "also serve the writing app to your browser on 127.0.0.1, and print its one-time launch URL"),
        Option("--console-port", value: "N", "the console's port (default: a free one)"),
    ]

    static func configured(_ arguments: ParsedArguments, vault: UnlockedVault, sessions: SessionRegistry,
                           limits: SessionLimits) throws -> ConsoleApp? {
        guard arguments.has("--console") else {
            if arguments.value("--console-port") != nil { throw UsageError(message: "--console-port needs --console", usage: arguments.usage) }
            return nil
        }
        let port = try arguments.integer("--console-port", in: 1...65_535).map(UInt16.init) ?? 0
        let console = try ConsoleApp(vault: vault, sessions: sessions, limits: limits, port: port)
        running.withLock { $0 = console }
        DaemonLog.line("vaultctl serve: console on http://127.0.0.1:\(console.server.port)/ (this machine only)")
        DaemonLog.line("vaultctl serve: open this one-time launch URL in your browser: \(try console.launchURL())")
        return console
    }

    /// The console this daemon serves, for `vaultctl console` run through it.
    static let running = Mutex<ConsoleApp?>(nil)

    /// `vaultctl console`: a new launch URL from the running daemon's console. Each URL works once, so
    /// after the browser was closed (its cookie dies with it) or the printed one was spent, this is how
    /// the owner gets back in without restarting the daemon. It runs in the daemon (its control socket
    /// is the owner's alone), never in the client.
    static let attach = Command("console", synopsis: "print a new one-time launch URL for the running daemon's console", about: """
        Asks the daemon serving the vault ('vaultctl serve --console') for a new one-time launch URL:
        each URL works once, so use this when the last one was spent or the browser was closed. Needs
        no passphrase: it asks the running daemon over its control socket. Exit 69 when no daemon
        with a console serves the vault.
        """, options: [DaemonSocket.option], json: true, examples: ["vaultctl console", "vaultctl --vault ~/clinic console"]) { arguments in
            // In the daemon, --vault must name the vault it serves (as every command run there checks).
            guard try CommandHost.vault(for: arguments) != nil else {
                throw CommandError(message: "no daemon serves this vault, so there is no console to open", exitCode: .unavailable,
                                   hint: "start one with 'vaultctl serve --console' (it prints a launch URL), then use 'vaultctl console' for new ones")
            }
            guard let console = running.withLock({ $0 }) else {
                throw CommandError(message: "the daemon serving this vault was started without --console", exitCode: .unavailable,
                                   hint: "stop it ('vaultctl serve --stop') and start it again with 'vaultctl serve --console'")
            }
            let url = try console.launchURL()
            if arguments.has("--json") { Output.json(["url": url]); return }
            Output.line("Open this one-time launch URL in your browser: \(url)")
        }
}
