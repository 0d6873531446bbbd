import AuditChain
import CryptoVault
import Dispatch
import Foundation
@testable import PeerChannel
import Synchronization

/// A vault with its device keys, in a temporary directory, audited by the real audit log.
final class PairingDevice: Sendable {
    let root: String
    let vault: UnlockedVault
    let keys: DeviceKeys

    init(_ name: String) throws {
        root = NSTemporaryDirectory() + "pairing-test-\(UUID().uuidString)"
        vault = try Vault.create(at: root + "/vault", passphrase: SecureBytes(copying: Array("correct horse battery staple".utf8)),
                                 kdf: .argon2idFloor, journal: AuditLog())
        keys = try vault.deviceKeys(nameIfNew: name)
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    var pairings: [FamilyPairing] { get throws { try vault.vault.familyPairings() } }

    /// (action, details) of each audit entry whose action starts with "peer.".
    func peerAuditEntries() throws -> [(action: String, details: [String: String])] {
        let keys = try vault.auditKeys()
        return try AuditLogReader(vault: vault.vault).entries().filter { $0.action.hasPrefix("peer.") }.map { entry in
            let details = try AuditLogReader.details(of: entry, vaultID: vault.vault.vaultID, keys: keys)
            return (entry.action, Dictionary(details.map { ($0.name, $0.value) }) { first, _ in first })
        }
    }

    func joiner() -> PairingJoiner { PairingJoiner(vault: vault, keys: keys) }
}

/// Runs `body` on another thread; `wait()` returns its outcome.
final class Background<Value: Sendable>: Sendable {
    private let outcome = Mutex<Result<Value, any Error>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () throws -> Value) {
        Thread.detachNewThread { [self] in
            let result = Result { try body() }
            outcome.withLock { $0 = result }
            done.signal()
        }
    }

    func wait() -> Result<Value, any Error> {
        done.wait()
        return outcome.withLock { $0! }
    }
}

enum Loopback {
    static let any = SocketAddress(host: "127.0.0.1", port: 0)
    static let timeout = 10.0

    static func listener() throws -> TCPListener { try TCPListener(address: any) }

    static func accept(_ listener: TCPListener, timeout: Double = timeout) throws -> TCPConnection {
        guard let connection = try listener.accept(waitSeconds: Loopback.timeout, maximumFrameLength: PairingWire.maximumFrameLength,
                                                   timeoutSeconds: timeout) else {
            throw PeerChannelError(.timedOut, "no connection arrived")
        }
        return connection
    }

    static func connect(_ listener: TCPListener, timeout: Double = timeout) throws(PeerChannelError) -> TCPConnection {
        try TCPConnection.connect(to: listener.address, maximumFrameLength: PairingWire.maximumFrameLength, timeoutSeconds: timeout)
    }

    /// The host serves `attempts` connections on a background thread: one outcome per attempt, and
    /// the lease as it was left.
    static func host(_ device: PairingDevice, lease: PairingCodeLease, attempts: Int, on listener: TCPListener,
                     timeout: Double = timeout)
        -> Background<(outcomes: [Result<FamilyPairing, PeerChannelError>], lease: PairingCodeLease)> {
        let start = PairingHost(vault: device.vault, keys: device.keys, lease: lease)
        return Background {
            var host = start
            var outcomes: [Result<FamilyPairing, PeerChannelError>] = []
            for _ in 0..<attempts {
                let connection = try accept(listener, timeout: timeout)
                outcomes.append(Result { () throws(PeerChannelError) in try serveTyped(&host, connection) })
            }
            return (outcomes, host.lease)
        }
    }

    private static func serveTyped(_ host: inout PairingHost, _ connection: TCPConnection) throws(PeerChannelError) -> FamilyPairing {
        do {
            return try host.serve(connection)
        } catch let error as PeerChannelError {
            throw error
        } catch {
            throw PeerChannelError(.primitiveFailure, "not a pairing error: \(error)")
        }
    }

    /// The joiner's attempt with `code`, as a typed result.
    static func join(_ device: PairingDevice, code: String, on listener: TCPListener) -> Result<FamilyPairing, PeerChannelError> {
        Result { () throws(PeerChannelError) in
            let typed = try PeerChannelError.wrappingPrimitives { try SecureBytes(copying: Array(code.utf8)) }
            let connection = try connect(listener)
            do {
                return try device.joiner().join(connection, code: try PairingCode(parsing: typed))
            } catch let error as PeerChannelError {
                throw error
            } catch {
                throw PeerChannelError(.primitiveFailure, "not a pairing error: \(error)")
            }
        }
    }
}

extension Result {
    var errorCode: PeerChannelErrorCode? {
        if case .failure(let error as PeerChannelError) = self { return error.code }
        return nil
    }
}

/// A code the tests know, and a clock they move.
final class TestClock: Sendable {
    private let seconds = Mutex<Double>(1000)
    func advance(_ by: Double) { seconds.withLock { $0 += by } }
    var clock: VaultClock { .forwardOnly { [self] in seconds.withLock { $0 } } }
}

func knownCode(_ text: String) throws -> PairingCode {
    try PairingCode(parsing: SecureBytes(copying: Array(text.utf8)))
}
