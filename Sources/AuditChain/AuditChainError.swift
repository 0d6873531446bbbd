import CryptoVault

/// The one error type of AuditChain: a code that tests and callers match on, and a message for people.
/// Equality compares codes only, so a test can ask for the exact failure without quoting the message.
public typealias AuditChainError = CodedError<AuditChainErrorCode>

/// What went wrong, for callers and tests to match on.
public enum AuditChainErrorCode: String, Sendable {
    /// A hash that is not a SHA-256 digest (32 bytes).
    case malformedHash
    /// A leaf index outside the tree it is claimed to be in.
    case indexOutOfRange
    /// A tree size the tree does not have, or a pair of sizes in the wrong order.
    case sizeOutOfRange
    /// A proof with more or fewer hashes than the tree shape requires.
    case wrongProofLength
    /// A proof of the right shape whose hashes do not lead to the expected root.
    case rootMismatch
}
