/// A service that runs for as long as the daemon does, in its process and with its vault and
/// sessions (the console's web server): started once the daemon listens, stopped before the daemon
/// ends its sessions and records its stop.
public protocol DaemonCompanion: Sendable {
    func start()
    func stop()
}
