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
    /// A stored or exported audit entry that does not decode, or breaks the chain.
    case malformedEntry
    /// An entry whose fields cannot be recorded (too long, bad characters).
    case invalidEvent
    /// The log, a checkpoint, a signature or the key chain fails verification.
    case verificationFailed

    // Signed notes (c2sp.org/signed-note), checkpoints (c2sp.org/tlog-checkpoint) and cosignatures
    // (c2sp.org/tlog-cosignature).

    /// A note larger than `SignedNote.maximumSize`, refused before any other work.
    case noteTooLarge
    /// Note text that is not UTF-8 or holds an ASCII control character other than newline.
    case invalidNoteEncoding
    /// A note without its parts: text ending in a newline, a blank line, signature lines.
    case malformedNote
    /// A signature line not of the form "— <key name> <base64(key ID || signature)>".
    case malformedSignatureLine
    /// More signature lines than `SignedNote.maximumSignatureCount`.
    case tooManySignatures
    /// A key name that is empty or holds whitespace, '+' or a control character.
    case invalidKeyName
    /// A verifier key not of the form "<name>+<8 lowercase hex digits>+<base64(type || public key)>".
    case malformedVerifierKey
    /// A verifier key of another signature type than the one asked for.
    case unsupportedKeyType
    /// A verifier key whose key ID is not the one its name, type and public key derive.
    case keyIDMismatch
    /// Two trusted keys with the same name and key ID but different public keys.
    case ambiguousVerifierKeys
    /// A signature by a trusted key that does not verify.
    case signatureInvalid
    /// A note that no trusted key has signed.
    case noVerifiedSignature
    /// The signing primitive failed.
    case signingFailed
    /// A checkpoint body with fewer than three lines, or an empty or invalid line.
    case malformedCheckpoint
    /// A tree size that is not canonical decimal (no sign, no leading zeros) within 64 bits.
    case malformedTreeSize
    /// A checkpoint of another log than the one expected.
    case originMismatch
    /// A cosignature that is not an 8-byte timestamp of at most 2^63 - 1 and a 64-byte signature.
    case malformedCosignature
    /// A note that carries no cosignature by the witness key asked about.
    case noCosignature
}
