import CryptoVault

/// The one error type of PrivilegedSession: a code that tests and callers match on, and a message for
/// people. Messages never quote the checked text, which may be the very identifier that must not leak;
/// equality compares codes only.
public typealias PrivilegedSessionError = CodedError<PrivilegedSessionErrorCode>

/// What went wrong, for callers and tests to match on.
public enum PrivilegedSessionErrorCode: String, Sendable {
    /// A character an identifier of that kind cannot contain.
    case invalidCharacter
    /// An identifier with too few or too many characters.
    case wrongLength
    /// Check digits outside the range their scheme can produce.
    case invalidCheckDigits
    /// A well-formed identifier whose check digits do not match.
    case checksumMismatch

    // MARK: Sessions and sharing

    /// A session was asked for on a compartment that is not privileged (it needs none).
    case notPrivileged
    /// A session's actor or purpose is empty, too long, or holds control characters.
    case invalidSessionText
    /// Session limits that are zero or negative.
    case invalidSessionLimits
    /// The session passed its idle timeout or absolute limit; it has ended and its keys are gone.
    case sessionExpired
    /// The session was ended; its keys are gone.
    case sessionEnded
    /// A privileged compartment was to be shared with another device.
    case sharingRefused
    /// A destination that is not KIND:ID with a known kind and a valid id.
    case invalidDestination
    /// An egress request that names no compartment.
    case invalidEgressRequest
    /// An `egress.decision` audit entry whose details are not an egress record.
    case invalidEgressRecord
    /// The egress policy refused bytes the funnel decided on by their metadata (ciphertext, a share grant).
    case egressRefused
    /// A privileged session or an egress asked of the in-memory mode's copy of a vault (SECURITY.md
    /// §19.10): its audit entry would die with the copy, so it is not made.
    case inMemoryMode

    // MARK: Leak guard fingerprints

    /// A fingerprint key outside the sizes keyed BLAKE2b takes (16...64 bytes).
    case invalidFingerprintKey
    /// Bytes that do not start with a fingerprint index's magic.
    case notAFingerprintIndex
    /// A fingerprint index of a format version, shingle size or normalisation this build does not know.
    case unsupportedFingerprintIndex
    /// A fingerprint index that ends before its header or its fingerprints do.
    case truncatedFingerprintIndex
    /// Bytes after the last fingerprint.
    case trailingData
    /// A fingerprint count above the index's bound.
    case tooManyFingerprints
    /// Fingerprints not in strictly increasing order (unsorted or repeated): not the canonical encoding.
    case fingerprintsOutOfOrder
    /// An index made under another key: its fingerprints would never match this key's.
    case fingerprintKeyMismatch
}
