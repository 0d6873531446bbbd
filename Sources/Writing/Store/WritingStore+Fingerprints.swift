import PrivilegedSession
import Registers

/// The leak guard's fingerprints of what is written into the writing app's projects (SECURITY.md §11.7).
///
/// `put` and `seal` fingerprint a privileged bundle as it is sealed; the writing app's documents are
/// sealed record by record instead, so each writing door that seals a project's words (a block, an
/// entry, a branch, here or from sync) hands them here, in the same transaction. A privileged
/// project's become the guard's fingerprints: without them a session note pasted into an ordinary
/// project shared with a colleague left by sync with nothing found (review 17 s13, N-s13-2). An
/// ordinary project's are kept apart, so words that were ordinary first (a colleague's paragraph
/// copied into a chart) never become privileged: they would refuse every later pull of the
/// colleague's own project for good (reviewer13's lg3 on the first fix).
extension WritingStore {
    var ordinaryFingerprintTable: OrdinaryFingerprintTable { OrdinaryFingerprintTable(database: transaction.database) }

    /// Remembers the fingerprints of `texts`, the words just sealed into `project`.
    func rememberWords(_ texts: [String], of project: WritingProject) throws {
        let texts = texts.filter { rememberedTexts.isNew($0, of: project.id) }
        guard !texts.isEmpty else { return }
        let fingerprints = try PrivilegedFingerprints.fingerprints(of: texts, in: transaction)
        let ordinary = try ordinaryFingerprintTable.exists() ? ordinaryFingerprintTable : nil
        guard project.isPrivileged else { return try ordinary?.insert(fingerprints) ?? () }
        try PrivilegedFingerprints.remember(try ordinary?.notHeld(fingerprints) ?? fingerprints, in: transaction)
    }

    /// The words sync brought into `document` while an open editor holds it (SECURITY.md §19.9):
    /// written when the editor closes, fingerprinted now. Otherwise a chart's note held under the
    /// desk's console was no privileged word yet when the same note arrived in a shared book, which
    /// made it ordinary first and let it go to the colleague (review 17 s14, reviewer14's lg7).
    public func rememberHeldWords(_ content: DocumentContent, in projectID: ProjectID) throws {
        try rememberWords(content.blocks.map(Self.fingerprintedText(of:)), of: try project(projectID))
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
