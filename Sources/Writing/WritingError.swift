import CryptoVault

/// The one error type of Writing: a code that tests and callers match on, and a message for people.
/// Messages never quote document text (it may be privileged); equality compares codes only.
public typealias WritingError = CodedError<WritingErrorCode>

/// What went wrong, for callers and tests to match on.
public enum WritingErrorCode: String, Sendable {
    /// A document larger than `WritingLimits.maximumDocumentBytes`, refused before any work starts.
    case documentTooLarge
    /// A block list longer than `WritingLimits.maximumBlocks`, refused before any work starts.
    case tooManyBlocks
    /// A diff applied to a text that is not the side it was computed from.
    case diffDoesNotApply
    /// An id of the wrong length or not hex: from a caller's argument or a damaged row.
    case invalidIdentifier
}
