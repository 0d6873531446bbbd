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
