import Registers

extension PlainText {
    /// The text of `content`, which `parse` with the same `labels` reads back as the same blocks:
    /// a field block is labelled by `labels` (its slot's own name when the register hides it or no
    /// labels are given), and a line that would read as something else is printed after a `\`.
    public static func render(_ content: DocumentContent, labels: FieldEditor? = nil) -> String {
        let fields = TextFormFields(labels)
        var out = ""
        var previous: BlockKind?
        for block in content.blocks {
            if let previous { out += adjacent(previous, block.kind) ? "\n" : "\n\n" }
            out += render(block, fields: fields)
            previous = block.kind
        }
        return out.isEmpty ? "" : out + "\n"
    }

    /// Two list items, or two fields, in a row are printed on consecutive lines.
    private static func adjacent(_ previous: BlockKind, _ next: BlockKind) -> Bool {
        switch (previous, next) {
        case (.listItem, .listItem), (.field, .field): true
        default: false
        }
    }

    static func render(_ block: Block, fields: TextFormFields) -> String {
        let lines = block.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        switch block.kind {
        case .paragraph:
            return lines.map { escaped($0, fields) }.joined(separator: "\n")
        case .heading(let level):
            return String(repeating: "#", count: level) + " " + continued(lines)
        case .listItem:
            return "- " + continued(lines)
        case .quote:
            return lines.map { $0.isEmpty ? ">" : "> " + $0 }.joined(separator: "\n")
        case .table:
            return block.rows.isEmpty ? "|" : block.rows.map(TableRowText.render).joined(separator: "\n")
        case .field(let slot):
            let first = lines[0].isEmpty ? "" : " " + lines[0]
            return ([fields.label(slot) + ":" + first] + lines.dropFirst().map { escaped($0, fields) }).joined(separator: "\n")
        }
    }

    /// A paragraph's (or a field's later) line, after a `\` when it would otherwise read as another kind.
    private static func escaped(_ line: String, _ fields: TextFormFields) -> String {
        TextFormLine.needsEscape(line, fields: fields) ? "\\" + line : line
    }

    /// A heading's or list item's text: its later lines each after a `\`.
    private static func continued(_ lines: [String]) -> String {
        ([lines[0]] + lines.dropFirst().map { "\\" + $0 }).joined(separator: "\n")
    }
}
