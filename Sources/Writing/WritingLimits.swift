/// Caps on what the writing model accepts from a caller, checked before any work starts (an attacker
/// who can hand the vault a document must not be able to make a diff or a merge eat the machine).
public enum WritingLimits {
    /// The largest document, in UTF-8 bytes: 100 MiB. A 150,000-word book is about 1 MB, so this is
    /// a hundred books, far beyond any one document a person writes.
    public static let maximumDocumentBytes = 100 * 1024 * 1024

    /// The most blocks a block-level merge takes: a million, against about 30,000 in a large project.
    public static let maximumBlocks = 1_000_000

    /// Refuses a text over `maximumDocumentBytes`; `role` names it in the message ("base", "ours").
    static func checkDocument(_ text: String, _ role: String) throws(WritingError) {
        guard text.utf8.count <= maximumDocumentBytes else {
            throw WritingError(.documentTooLarge,
                               "the \(role) document is \(text.utf8.count) bytes; at most \(maximumDocumentBytes) are accepted")
        }
    }

    static func checkBlocks(_ count: Int, _ role: String) throws(WritingError) {
        guard count <= maximumBlocks else {
            throw WritingError(.tooManyBlocks, "the \(role) side has \(count) blocks; at most \(maximumBlocks) are accepted")
        }
    }
}

extension WritingLimits {
    /// The largest document the store keeps, in UTF-8 bytes of its text and cells: 16 MiB, sixteen
    /// long books in one document. Checked before anything is read or sealed, so a hostile 100 MB
    /// paste is refused at once and changes nothing.
    public static let maximumStoredDocumentBytes = 16 * 1024 * 1024

    /// The largest block: its encoding (SECURITY.md §14.4) must fit one sealed record (1 MiB), so its
    /// text and cells may hold at most 1 MiB less 64 KiB for the encoding's lengths.
    public static let maximumBlockBytes = 1024 * 1024 - 64 * 1024

    /// The deepest folder nesting: a document at the top level is at depth 1, in a folder at depth 2.
    /// Deeper binders are refused, so a hostile or buggy caller cannot make a walk of the tree unbounded.
    public static let maximumNesting = 32

    /// The longest project name or document title, in UTF-8 bytes.
    public static let maximumNameBytes = 512
}
