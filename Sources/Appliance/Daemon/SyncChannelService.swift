import CryptoVault
import Dispatch
import Foundation
import PeerChannel
import Sync

/// The sync exchange (SECURITY.md §19.9) as a channel service of the daemon: each request goes to
/// the `SyncResponder`. A refusal in the exchange's terms goes back as `peerRefused` whose text
/// starts with its code in brackets ("[notShared] …"), which `ChannelSyncTransport` reads back, so
/// the asking side knows why in the exchange's own codes.
public struct SyncChannelService: ChannelService {
    public let responder: SyncResponder

    public init(vault: UnlockedVault, coordinator: SyncCoordinator? = .shared) {
        responder = SyncResponder(vault: vault, coordinator: coordinator)
    }

    public var requestKinds: [String] { SyncWire.kinds }

    public func respond(to kind: String, body: [UInt8], from peer: DeviceProfile) throws -> [UInt8] {
        do {
            return try responder.respond(to: kind, body: body, from: peer).bytes
        } catch let error as SyncExchangeError {
            throw PeerChannelError(.peerRefused, "[\(error.code.rawValue)] \(error.message)")
        } catch let error as SyncError {
            throw PeerChannelError(.peerRefused, "[\(error.code.rawValue)] \(error.message)")
        }
    }
}

/// A channel client as the exchange's transport: a refusal the sync service explained with its code
/// is thrown as that `SyncExchangeError`.
///
/// A request given a time (`request(_:body:within:)`, the run's deadline) waits for its answer that
/// long at most: the request runs on a thread of its own, and when the time is up the transport
/// stops waiting (`deadlineExceeded`) and never uses the channel again; the abandoned request ends
/// when the channel's own idle timeout closes it. The client is never used by two threads at once:
/// the caller's thread waits for the request's, or leaves it the client for good.
public final class ChannelSyncTransport: SyncTransport {
    public let client: ChannelRequesting
    /// A request was abandoned at a deadline: the channel is left to it.
    private var abandoned = false

    public init(_ client: ChannelRequesting) { self.client = client }

    public var peer: DeviceProfile { client.peer }

    public func request(_ kind: String, body: SyncOutgoing) throws -> [UInt8] {
        try checked(kind) { try client.request(kind, body: body.bytes) }
    }

    public func request(_ kind: String, body: SyncOutgoing, within seconds: Double) throws -> [UInt8] {
        guard !abandoned else { throw SyncExchangeError(.deadlineExceeded, "the channel to \(peer.name) was left to a request that did not end in time") }
        let call = BoundedCall(client: client, kind: kind, body: body.bytes)
        Thread.detachNewThread { call.run() }
        guard let result = call.wait(seconds: seconds) else {
            abandoned = true
            throw SyncExchangeError(.deadlineExceeded, "\(peer.name) did not answer '\(kind)' in time (\(Int(seconds.rounded(.up))) s left of the sync's deadline)")
        }
        return try checked(kind) { try result.get() }
    }

    private func checked(_ kind: String, _ body: () throws -> [UInt8]) throws -> [UInt8] {
        do {
            return try body()
        } catch let error as PeerChannelError where error.code == .peerRefused {
            if let refusal = Self.exchangeError(error) { throw refusal }
            if let failure = Self.peerFailure(error) { throw failure }
            throw error
        } catch let error as PeerChannelError where error.code == .unknownRequestKind && SyncWire.kinds.contains(kind) {
            // A device of an older build knows no such request of the exchange (`sync.demotions` came
            // within version 2; closing note s11): said plainly, with what to do.
            throw PeerChannelError(.unknownRequestKind, "\(peer.name) runs an older build of vaultctl, which does not answer '\(kind)' "
                                   + "(within exchange version 2): update vaultctl on \(peer.name), then sync again (\(error.message))")
        }
    }

    /// "NAME refused: [code] text" with a code of the records (`SyncErrorCode`): the peer
    /// failed that project's request for a reason of its records there, the project's alone.
    static func peerFailure(_ error: PeerChannelError) -> SyncPeerFailure? {
        guard let open = error.message.range(of: ": ["), let close = error.message[open.upperBound...].firstIndex(of: "]"),
              let code = SyncErrorCode(rawValue: String(error.message[open.upperBound..<close])) else { return nil }
        return SyncPeerFailure(code, "\(error.message[..<open.lowerBound]): \(error.message[error.message.index(after: close)...].drop(while: { $0 == " " }))")
    }

    /// "NAME refused: [code] text" → the code's error with the text.
    static func exchangeError(_ error: PeerChannelError) -> SyncExchangeError? {
        guard let open = error.message.range(of: ": ["), let close = error.message[open.upperBound...].firstIndex(of: "]"),
              let code = SyncExchangeErrorCode(rawValue: String(error.message[open.upperBound..<close])) else { return nil }
        return SyncExchangeError(code, "\(error.message[..<open.lowerBound]): \(error.message[error.message.index(after: close)...].drop(while: { $0 == " " }))")
    }
}

/// One request run on a thread of its own, its answer waited for a bounded time.
private final class BoundedCall: @unchecked Sendable {
    // Unchecked: `client` is used by the request's thread alone once it starts (the transport's
    // thread waits, or gives it up for good), and `result` only under `lock`.
    private let client: ChannelRequesting
    private let kind: String
    private let body: [UInt8]
    private let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var result: Result<[UInt8], Error>?

    init(client: ChannelRequesting, kind: String, body: [UInt8]) {
        self.client = client
        self.kind = kind
        self.body = body
    }

    func run() {
        let answer = Result { try client.request(kind, body: body) }
        lock.withLock { result = answer }
        done.signal()
    }

    /// The answer, or nil when none came within `seconds`.
    func wait(seconds: Double) -> Result<[UInt8], Error>? {
        // A deadline a year away or more (or none: infinity) waits as long as the channel does.
        if seconds < 31_536_000 {
            guard done.wait(timeout: .now() + max(0, seconds)) == .success else { return nil }
        } else {
            done.wait()
        }
        return lock.withLock { result }
    }
}
