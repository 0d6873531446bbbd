import CryptoVault

/// The peer refused one project's request for a reason of that project's change records on its
/// side (a `SyncErrorCode`: its own commit over a bound, its stored records damaged): the asker
/// leaves that project for the run and goes on with the others (SECURITY.md §19.9), as it does for
/// the same failure here. A transport that reads the peer's refusal codes throws this for those codes.
public struct SyncPeerFailure: Error, Sendable, Equatable {
    public let code: SyncErrorCode
    public let message: String

    public init(_ code: SyncErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    /// Equal codes are equal failures, as for `CodedError`: tests ask for the code.
    public static func == (a: SyncPeerFailure, b: SyncPeerFailure) -> Bool { a.code == b.code }
}
