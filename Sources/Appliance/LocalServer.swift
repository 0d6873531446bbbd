import CryptoVault
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The daemon's local side (SECURITY.md §10.6): a Unix socket (mode 0600, in the vault directory by
/// default) that answers only processes of the daemon's own user. File permissions keep other users
/// from connecting; the kernel's peer credentials are checked as well, since root and a misplaced
/// socket ignore file permissions. Each connection carries one request and its reply, on its own
/// thread; at most `maximumClients` run at once and a client has `requestTimeout` from its connection
/// to send its whole request. Each reply frame must be taken within the same time.
public final class LocalServer: Sendable {
    public typealias Handler = @Sendable (ControlMessage, ControlConnection, PeerCredentials) -> Void

    public let socketPath: String
    public let ownerUID: uid_t
    private let listener: Int32
    private let lock: DaemonLock
    private let maximumClients: Int
    private let requestTimeout: Double
    private let activeClients = Mutex(0)
    private let stopping = Atomic<Bool>(false)
    private let closed = Atomic<Bool>(false)

    /// Takes the vault's daemon lock and listens at `socketPath`.
    public init(socketPath: String, ownerUID: uid_t = getuid(), maximumClients: Int = 16, requestTimeout: Double = 10) throws(ApplianceError) {
        lock = try DaemonLock(socketPath: socketPath)
        listener = try LocalSocket.listen(at: socketPath)
        self.socketPath = socketPath
        self.ownerUID = ownerUID
        self.maximumClients = maximumClients
        self.requestTimeout = requestTimeout
    }

    deinit { removeSocket() }

    /// Serves until `stop()`. `refused` hears of each connection from another user (to audit it).
    public func run(refused: @Sendable (PeerCredentials) -> Void, handler: @escaping Handler) {
        defer { removeSocket() }
        while !stopping.load(ordering: .acquiring) {
            guard let descriptor = try? LocalSocket.accept(listener, milliseconds: 200) else { continue }
            // The request's whole deadline starts at accept: a client has `requestTimeout` to send all of it.
            let deadline = VaultClock.system.date().addingTimeInterval(requestTimeout)
            let connection = ControlConnection(descriptor: descriptor, timeoutSeconds: requestTimeout)
            guard let credentials = try? connection.peerCredentials() else { continue }
            guard credentials.uid == ownerUID else {
                refused(credentials)
                try? connection.send(.failure(.notOwner, "this daemon serves only its owner (uid \(ownerUID)); you are uid \(credentials.uid)", exit: 77))
                continue
            }
            guard reserveClient() else {
                try? connection.send(.failure(.invalidRequest, "the daemon is serving \(maximumClients) clients; try again", exit: 1))
                continue
            }
            Thread.detachNewThread { [self] in
                defer { releaseClient() }
                serve(connection, credentials, before: deadline, handler)
            }
        }
    }

    public func stop() { stopping.store(true, ordering: .releasing) }

    /// Closes the listening socket and removes its file, once. `run` does this when it returns, so a
    /// stopped daemon leaves no socket behind even if something still holds the server.
    private func removeSocket() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        close(listener)
        unlink(socketPath)
    }

    private func serve(_ connection: ControlConnection, _ credentials: PeerCredentials, before deadline: Date, _ handler: Handler) {
        let request: ControlMessage
        do {
            request = try connection.receive(before: deadline)
        } catch {
            try? connection.send(.failure(error.code, error.message, exit: 65))
            return
        }
        handler(request, connection, credentials)
    }

    private func reserveClient() -> Bool {
        activeClients.withLock { count in
            guard count < maximumClients else { return false }
            count += 1
            return true
        }
    }

    private func releaseClient() { activeClients.withLock { $0 -= 1 } }
}

extension ControlMessage {
    /// A reply that says the request succeeded; the caller adds its results.
    public static func success() -> ControlMessage { ControlMessage(["status": "ok"]) }

    /// A reply that says why the request failed, with the exit code the client should end with.
    public static func failure(_ code: ApplianceErrorCode, _ message: String, exit: Int32, hint: String? = nil) -> ControlMessage {
        failure(code: code.rawValue, message, exit: exit, hint: hint)
    }

    public static func failure(code: String, _ message: String, exit: Int32, hint: String? = nil) -> ControlMessage {
        var reply = ControlMessage(["status": "error", "error": code, "message": message, "exit": "\(exit)"])
        if let hint { reply.set("hint", hint) }
        return reply
    }

    public var isSuccess: Bool { text("status") == "ok" }
}
