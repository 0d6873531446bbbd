import CryptoVault
import Dispatch
import Foundation
import PrivilegedSession
import Writing
#if canImport(Glibc)
import Glibc
#endif

/// `vaultctl serve` (SECURITY.md §10.6): the vault unlocked once, privileged sessions held in this
/// process's locked memory, and the owner's commands answered on the local socket. Its start, its
/// stop and every refused connection are audit entries; stopping (SIGTERM, SIGINT) ends and wipes
/// every session. A killed daemon leaves nothing to clean: keys were only ever in its memory, core
/// dumps are off, and the next daemon replaces the dead one's socket.
public final class Daemon: Sendable {
    public typealias FailureReply = @Sendable (Error) -> ControlMessage

    let vault: UnlockedVault
    let server: LocalServer
    let requests: DaemonRequests
    let channel: ChannelListening?
    let sessions: SessionRegistry
    let companions: [DaemonCompanion]

    /// `failureReply` turns an error into the reply a client reports (message, hint, exit code): the
    /// face that starts the daemon knows how it reports errors.
    /// `commands` runs the commands clients forward (§10.8); without it the daemon answers only its own requests.
    /// `sessions` is shared with the `companions` (the console), which start and stop with the daemon.
    public init(vault: UnlockedVault, server: LocalServer, limits: SessionLimits, channel: ChannelListening?,
                failureReply: @escaping FailureReply, commands: ForwardedCommand.Host? = nil,
                sessions: SessionRegistry = SessionRegistry(), companions: [DaemonCompanion] = []) {
        self.vault = vault
        self.server = server
        self.channel = channel
        self.sessions = sessions
        self.companions = companions
        requests = DaemonRequests(vault: vault, sessions: sessions, limits: limits, failureReply: failureReply, commands: commands)
    }

    public func run() throws {
        try vault.record(VaultEvent(.daemonStart, details: [.init("pid", "\(getpid())")]))
        Self.surviveClosedStreams()
        let signals = stopOnSignals()
        let sweeper = startSweeper()
        channel?.start()
        companions.forEach { $0.start() }
        DaemonLog.line("vaultctl serve: listening on \(server.socketPath) (pid \(getpid())); stop with Ctrl-C or SIGTERM")
        server.run(refused: recordRefusal) { [requests, vault, server] request, connection, client in
            // `serve --stop`: only the owner gets this far (the server checked the peer's uid).
            if request.text("op") == "daemon.stop" {
                var reply = ControlMessage.success()
                reply.set("pid", "\(getpid())")
                try? connection.send(reply)
                server.stop()
                return
            }
            requests.handle(request, on: connection, from: client)
            // Each answered request is covered by a signed checkpoint at once, not when the daemon stops.
            try? vault.vault.finishCommand()
        }
        signals.forEach { $0.cancel() }
        sweeper.cancel()
        channel?.stop()
        companions.forEach { $0.stop() }
        stop()
    }

    private func stop() {
        let failures = sessions.endAll(reason: .daemonStopped)
        vault.dropSearchIndexes()
        for failure in failures { DaemonLog.note("vaultctl: warning: a session's end could not be recorded: \(requests.message(of: failure))") }
        do {
            try vault.record(VaultEvent(.daemonStop, details: [.init("pid", "\(getpid())")]))
        } catch {
            DaemonLog.note("vaultctl: warning: the daemon's stop could not be recorded: \(requests.message(of: error))")
        }
        DaemonLog.note("vaultctl serve: stopped; every session ended")
    }

    private func recordRefusal(_ credentials: PeerCredentials) {
        try? vault.record(VaultEvent(.daemonRefused, details: [.init("uid", "\(credentials.uid)"), .init("pid", "\(credentials.pid)")]))
        try? vault.vault.finishCommand()
    }

    /// A command run for a client writes to the client's own streams (§10.8): when their reader has
    /// gone (`vaultctl audit log | head -1`), the write must fail with EPIPE and end that command as
    /// it ends the client's (quietly, its one-command sessions ended and recorded), not raise SIGPIPE
    /// and end the daemon with every session in it and no daemon.stop recorded (review 17 s11, N-s11-6).
    private static func surviveClosedStreams() {
        signal(SIGPIPE, SIG_IGN)
    }

    private func stopOnSignals() -> [DispatchSourceSignal] {
        [SIGTERM, SIGINT, SIGHUP].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [server] in server.stop() }
            source.resume()
            return source
        }
    }

    /// Ends sessions when their limits pass, so that keys go then and not at the next request.
    private func startSweeper() -> DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now() + 1, repeating: 1)
        timer.setEventHandler { [sessions, vault] in
            guard !sessions.sweepExpired().isEmpty else { return }
            // A privileged project's search index goes with the session that read it (SECURITY.md §15.4).
            vault.dropSearchIndexes()
            try? vault.vault.finishCommand()
        }
        timer.resume()
        return timer
    }
}
