import CryptoVault
import Foundation
import Registers
import Writing

/// How `branch adopt` shows the overlaps it refused (issue 15: "overlapping changes are shown, never
/// silently dropped"): each place the document and the proposal both changed, with both sides' words
/// compared with the base word by word, marked as `branch diff` marks them ([-removed-], {+added+}),
/// so the reader sees what each side did there and can write the one text that keeps both.
enum BranchConflictOutput {
    /// One overlap as --json gives it: where it is on each side, and each side's text and runs against the base.
    static func json(_ conflict: BranchConflict, labels: FieldEditor) throws -> [String: Any] {
        let base = text(conflict.base, labels)
        return ["base": ["text": base],
                "document": try side(conflict.document, start: conflict.documentStart, base: base, labels),
                "proposal": try side(conflict.proposal, start: conflict.proposalStart, base: base, labels)]
    }

    private static func side(_ blocks: [Block], start: Int, base: String, _ labels: FieldEditor) throws -> [String: Any] {
        let text = text(blocks, labels)
        return ["first_block": start + 1, "blocks": blocks.map(\.id.hex), "text": text,
                "runs": WordDiffOutput.json(try WordDiff.between(base, text))]
    }

    /// The overlaps in the register's words: "Overlap 1 of 2: the note's block 3 against the suggested
    /// change's block 3", then each side's words against the base.
    static func lines(_ conflicts: [BranchConflict], _ register: Register) throws -> [String] {
        let labels = FieldEditor(register)
        let document = WritingContext.term(.scene, register), branch = WritingContext.term(.branch, register)
        var lines: [String] = []
        for (index, conflict) in conflicts.enumerated() {
            let base = text(conflict.base, labels)
            lines.append("Overlap \(index + 1) of \(conflicts.count): the \(document)'s \(span(conflict.documentStart, conflict.document.count)) "
                         + "against the \(branch)'s \(span(conflict.proposalStart, conflict.proposal.count)); "
                         + "each side's words against the version the \(branch) was made from:")
            lines.append("  The \(document) now:")
            lines += indented(WordDiffOutput.text(try WordDiff.between(base, text(conflict.document, labels))))
            lines.append("  The \(branch):")
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
