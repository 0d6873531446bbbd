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
    /// No project with that id or name (or a name that only a session could read).
    case projectNotFound
    /// No document or folder with that id or title in the project.
    case nodeNotFound
    /// An id that names a record of another project, given where this project's was meant.
    case notInProject
    /// A folder moved under itself or under one of its own descendants.
    case moveIntoItself
    /// Folders nested deeper than `WritingLimits.maximumNesting`.
    case nestingTooDeep
    /// Text that is not valid UTF-8, or holds a NUL or another control character a document cannot.
    case invalidText
    /// One block larger than `WritingLimits.maximumBlockBytes` (a sealed record's bound).
    case blockTooLarge
    /// A name or title that is empty, too long, or has control characters or edge spaces.
    case invalidName
    /// A title or name that more than one record has: give the id.
    case ambiguousName
    /// A document where a folder is needed, or a folder where a document is (content is a document's).
    case wrongNodeKind
    /// A sealed value or a row of the writing model that does not decode: the vault file was damaged.
    case damagedRecord
    /// A privileged project read without a session of its compartment.
    case privilegedSessionRequired
    /// A folder removed with documents or folders still in it.
    case folderNotEmpty
    /// A change to an archived project.
    case projectArchived
    /// A change to a project shared with this device to view only (SECURITY.md §19.9).
    case viewOnly
    /// No snapshot with that id (in any document).
    case snapshotNotFound
    /// A search query that does not parse or is over its bounds (`SearchQuery`).
    case invalidQuery
    /// No branch with that id (in any document).
    case branchNotFound
    /// An adoption or revert whose changes overlap the document's own since: the message lists the
    /// overlapping blocks, and nothing was changed.
    case branchConflict
    /// An adopt or discard of a branch that is not open, or a revert of one that is not adopted.
    case branchNotOpen
    /// An export to a format whose program (pandoc, groff) is not installed; the message names the package.
    case exportToolMissing
    /// An export's conversion program failed or ran past its time; nothing was written.
    case exportFailed
}
