import CryptoVault

/// The one error type of the appliance daemon's local side: a code to match on and a message for
/// people. Messages never hold plaintext, keys or passphrases.
public typealias ApplianceError = CodedError<ApplianceErrorCode>

public enum ApplianceErrorCode: String, Sendable {
    /// A control message that does not parse: bad lengths, a bad or repeated field name, trailing bytes.
    case malformedMessage
    /// A control message or frame larger than the bound.
    case messageTooLarge
    /// The other side closed the connection in the middle of an exchange.
    case connectionClosed
    /// The other side said nothing within the time allowed.
    case timedOut
    /// A socket call failed.
    case socketFailed
    /// The socket path does not fit a Unix socket address (108 bytes).
    case socketPathTooLong
    /// Another daemon already serves this vault.
    case daemonAlreadyRunning
    /// No daemon answers on the socket.
    case noDaemon
    /// The connecting process belongs to another user than the daemon's.
    case notOwner
    /// A request the daemon does not know, or without a field it needs.
    case invalidRequest
    /// No live session matches (none for the compartment, an unknown or ended id).
    case noSession
}
