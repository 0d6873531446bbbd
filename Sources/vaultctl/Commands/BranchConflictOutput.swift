import CryptoVault
import Foundation
import Registers
import Writing

/// How `branch adopt` and `branch revert` show the overlaps they refused (issue 15: "overlapping
/// changes are shown, never silently dropped"): each place both sides changed, with both sides' words
/// compared with the base word by word, marked as `branch diff` marks them ([-removed-], {+added+}),
/// so the reader sees what each side did there and can write the one text that keeps both.
enum BranchConflictOutput {
    /// Whose overlaps: an adoption's (the document against the branch, from the branch's base) or a
    /// revert's (the document against its text before the adoption, from the adopted version).
    enum Overlaps: Sendable {
        case adoption, revert

        /// The --json key of the side that is not the document.
        var otherKey: String { self == .adoption ? "proposal" : "before_adoption" }
    }

    /// One overlap as --json gives it: where it is on each side, and each side's text and runs against the base.
    static func json(_ conflict: BranchConflict, _ overlaps: Overlaps, labels: FieldEditor) throws -> [String: Any] {
        let base = text(conflict.base, labels)
        return ["base": ["text": base],
                "document": try side(conflict.document, start: conflict.documentStart, base: base, labels),
                overlaps.otherKey: try side(conflict.proposal, start: conflict.proposalStart, base: base, labels)]
    }

    private static func side(_ blocks: [Block], start: Int, base: String, _ labels: FieldEditor) throws -> [String: Any] {
        let text = text(blocks, labels)
        return ["first_block": start + 1, "blocks": blocks.map(\.id.hex), "text": text,
                "runs": WordDiffOutput.json(try WordDiff.between(base, text))]
    }

    /// The overlaps in the register's words: "Overlap 1 of 2: the note's block 3 against the suggested
    /// change's block 3" (a revert's: "against block 3 from before the suggested change was
    /// adopted"), then each side's words against the base.
    static func lines(_ conflicts: [BranchConflict], _ overlaps: Overlaps, _ register: Register) throws -> [String] {
        let labels = FieldEditor(register)
        let document = WritingContext.term(.scene, register), branch = WritingContext.term(.branch, register)
        var lines: [String] = []
        for (index, conflict) in conflicts.enumerated() {
            let base = text(conflict.base, labels)
            let other = span(conflict.proposalStart, conflict.proposal.count)
            switch overlaps {
            case .adoption:
                lines.append("Overlap \(index + 1) of \(conflicts.count): the \(document)'s \(span(conflict.documentStart, conflict.document.count)) "
                             + "against the \(branch)'s \(other); each side's words against the version the \(branch) was made from:")
            case .revert:
                lines.append("Overlap \(index + 1) of \(conflicts.count): the \(document)'s \(span(conflict.documentStart, conflict.document.count)) "
                             + "against \(other) from before the \(branch) was adopted; each side's words against the version the adoption stored:")
            }
            lines.append("  The \(document) now:")
            lines += indented(WordDiffOutput.text(try WordDiff.between(base, text(conflict.document, labels))))
            lines.append(overlaps == .adoption ? "  The \(branch):" : "  Before the adoption:")
            lines += indented(WordDiffOutput.text(try WordDiff.between(base, text(conflict.proposal, labels))))
        }
        return lines
    }

    private static func text(_ blocks: [Block], _ labels: FieldEditor) -> String {
        PlainText.render(DocumentContent(blocks: blocks), labels: labels)
    }

    private static func span(_ start: Int, _ count: Int) -> String {
        switch count {
        case 0: "nothing (before block \(start + 1))"
        case 1: "block \(start + 1)"
        default: "blocks \(start + 1)-\(start + count)"
        }
    }

    private static func indented(_ text: String) -> [String] {
        let body = text.hasSuffix("\n") ? String(text.dropLast()) : text
        return body.isEmpty ? ["    (nothing)"] : body.split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }
    }
}
