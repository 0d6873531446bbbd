import Appliance
import CryptoVault
import Foundation
import PeerChannel
import PrivilegedSession

/// `serve`: the appliance daemon (SECURITY.md §10.6).
enum ServeCommand {
    static let command = Command("serve", synopsis: "run the daemon: sessions held in memory, a local socket for the owner", about: """
        Unlocks the vault once and answers its owner's commands on a Unix socket (mode 0600, in the
        vault directory): 'vaultctl session start|list|end', and 'open' and 'get', which read through
        it (a privileged bundle only inside a session). Connections from other users are refused and
        audited. Keys live only in this process's locked memory; core dumps are off. Ctrl-C or SIGTERM
        stops it, ending every session; a killed daemon leaves no key behind. While it runs, put, ls,
        compartment, egress and audit log run in it too, with no passphrase asked; each request is
        audited with the caller's uid (SECURITY.md §10.8).

        With --address it also serves paired devices over the encrypted channel (SECURITY.md §9.9):
        only devices whose keys were pinned at pairing get past the handshake. It syncs by itself
        with your own devices when it sees one: connecting to it, or (with --announce) announcing
        itself on the LAN, on UDP port 7422 unless --announce-port says another.

        With --console it also serves the writing app to your own browser, on 127.0.0.1 only
        (--console-port N, a free port by default), and prints a one-time launch URL: open it to sign
        the browser in (SECURITY.md §16).

        With --detach it asks for the passphrase here, then runs in the background (output in
        daemon.log in the vault directory) and prints its pid; 'vaultctl serve --stop' ends it.
        """, options: Credentials.options + [DaemonSocket.option, Option("--session-idle", value: "SECONDS", "a session ends after this long without a read (default 300)"),
                                             Option("--session-limit", value: "SECONDS", "and after this long in all (default 3600)")] + channelOptions + ConsoleLaunch.options + DaemonDetach.options,
        noJSON: "it is the daemon: it runs until stopped, and its log is for people", examples: ["vaultctl serve --detach", "vaultctl serve --stop", "vaultctl serve --console", "vaultctl serve --address 0.0.0.0:\(ChannelServer.defaultPort) --announce"]) { arguments in
            if arguments.has("--stop") { try DaemonDetach.stop(arguments); return }
            let limits = SessionLimits(idleTimeout: TimeInterval(try arguments.integer("--session-idle", in: 1...86_400) ?? 300),
                                       absoluteLimit: TimeInterval(try arguments.integer("--session-limit", in: 1...86_400) ?? 3600))
            if arguments.has("--detach") { try DaemonDetach.start(arguments); return }
            // One daemon per vault, whatever its socket (and none while a repair runs): taken before
            // the vault is opened, held for the daemon's life.
            let vaultLock = try holdingTheVault(arguments)
            let unlocked = try VaultLocation.unlock(arguments)
            let server = try LocalServer(socketPath: DaemonSocket.path(arguments))
            let channel = try channelListening(arguments, vault: unlocked)
            let sessions = SessionRegistry(writingSessions: WritingSessionEnds(vault: unlocked))
            let console = try ConsoleLaunch.configured(arguments, vault: unlocked, sessions: sessions, limits: limits)
            try Daemon(vault: unlocked, server: server, limits: limits, channel: channel, failureReply: FailureReport.reply,
                       commands: CommandHost.run, sessions: sessions, companions: console.map { [$0] } ?? []).run()
            withExtendedLifetime(vaultLock) {}
        }

    /// The vault's daemon lock (`DaemonLock(vaultDirectory:)`), or nil when there is no vault folder
    /// (the open then says what is wrong).
    static func holdingTheVault(_ arguments: ParsedArguments) throws -> DaemonLock? {
        var isDirectory: ObjCBool = false
        let directory = VaultLocation.realDirectory(arguments)
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else { return nil }
        return try DaemonLock(vaultDirectory: directory)
    }

    static let channelOptions = [
        // `--address`, as every command names an address; `--listen` is the older spelling, still accepted.
        Option("--address", value: "ADDR:PORT",
               "also serve paired devices over the encrypted channel there (e.g. 0.0.0.0:\(ChannelServer.defaultPort)): ping, replication, witnessing, sharing",
               aliases: ["--listen"]),
        Option("--announce", "with --address, broadcast this device's name and port on the LAN every few seconds (a hint for 'peers discover'; trust comes from pairing)"),
        announcePortOption,
    ]

    /// The one place the announcement port is chosen for the daemon: where it broadcasts, and where it
    /// hears its own devices' announcements (background sync). Two daemons on one machine, or a LAN
    /// that uses 7422 for something else, need another.
    static let announcePortOption = Option("--announce-port", value: "N",
        "with --announce, the UDP port announcements are broadcast to and heard on, 1 to 65535 (default \(Announcement.defaultPort))")

    /// The channel configured by the command line (SECURITY.md §9.9), or nil without `--address`.
    private static func channelListening(_ arguments: ParsedArguments, vault: UnlockedVault) throws -> ChannelListening? {
        let port = try arguments.integer("--announce-port", in: 1...65535)
        if port != nil, !arguments.has("--announce") { throw UsageError(message: "--announce-port needs --announce", usage: arguments.usage) }
        guard let address = arguments.value("--address") else {
            if arguments.has("--announce") { throw UsageError(message: "--announce needs --address", usage: arguments.usage) }
            return nil
        }
        return try ChannelListening.configured(address: address, announce: arguments.has("--announce"),
                                               announcePort: port.map(UInt16.init) ?? Announcement.defaultPort, vault: vault)
    }
}

extension FailureReport {
    /// The daemon's reply for an error: what this process would say of it, so a client reports the
    /// same message, hint and exit code as if the command had failed in its own process.
    @Sendable static func reply(_ error: Error) -> ControlMessage {
        let report = FailureReport(error)
        let code = (error as? ApplianceError)?.code.rawValue ?? "failed"
        return .failure(code: code, report.message, exit: report.exitCode.rawValue, hint: report.hint)
    }
}
