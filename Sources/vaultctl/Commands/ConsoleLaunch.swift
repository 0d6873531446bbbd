import Appliance
import Console
import CryptoVault
import PrivilegedSession

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
        DaemonLog.line("vaultctl serve: console on http://127.0.0.1:\(console.server.port)/ (this machine only)")
        DaemonLog.line("vaultctl serve: open this one-time launch URL in your browser: \(try console.launchURL())")
        return console
    }
}
