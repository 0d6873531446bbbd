import PrivilegedSession
import Registers

/// The leak guard's fingerprints of what is written into a privileged project (SECURITY.md §11.7).
///
/// `put` and `seal` fingerprint a privileged bundle as it is sealed; the writing app's privileged
/// documents are sealed record by record instead, so each writing door that seals a privileged
/// project's words (a block, an entry, a branch, here or from sync) hands them here, in the same
/// transaction. Without it a session note pasted into an ordinary project shared with a colleague
/// would leave by sync with nothing found (review 17 s13, N-s13-2).
extension WritingStore {
    /// Remembers the fingerprints of `texts` when `project` is privileged; an ordinary project's
    /// words are not privileged and add nothing.
    func rememberPrivilegedWords(_ texts: [String], of project: WritingProject) throws {
        guard project.isPrivileged, !texts.isEmpty else { return }
        try PrivilegedFingerprints.remember(texts: texts, in: transaction)
    }

    /// The words of a block, its cells included: a pasted table row quotes them in this order.
    static func fingerprintedText(of block: Block) -> String {
        block.rows.isEmpty ? block.text : ([block.text] + block.rows.map { $0.joined(separator: " ") }).joined(separator: "\n")
    }

    /// The words of an entry: its name, body and fields.
    static func fingerprintedText(of entry: ProjectEntry) -> String {
        ([entry.name, entry.body] + entry.fields.sorted { $0.key.rawValue < $1.key.rawValue }.map(\.value)).joined(separator: "\n")
    }
}
