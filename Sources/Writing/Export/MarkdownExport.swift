/// A project as CommonMark: `#` headings, paragraphs, `- ` lists, `> ` quotes, a pipe table (the
/// GitHub extension pandoc also reads) and `**Label:** text` for a field block. Every character the
/// writer typed that Markdown would read as markup is escaped, so the text comes back as written: a
/// writer's `*` or `<b>` is a literal character, never emphasis or HTML. A line break inside a block
/// is kept as a hard break (a backslash at the end of the line). Reached through `ProjectExport` only
/// (its output is plaintext that leaves the vault: it passes the egress funnel there).
enum MarkdownExport {
    static func render(_ project: ExportedProject) -> String {
        ExportPart.parts(of: project).map(render).joined(separator: "\n\n") + "\n"
    }

    static func render(_ part: ExportPart) -> String {
        switch part {
        case .heading(let level, let text): String(repeating: "#", count: level) + " " + inline(text, breaks: " ")
        case .paragraph(let text): inline(text)
        case .list(let items): items.map { "- " + inline($0, indent: "  ") }.joined(separator: "\n")
        case .quote(let text): "> " + inline(text, indent: "> ")
        case .field(let label, let text): "**" + inline(label, breaks: " ") + ":** " + inline(text)
        case .table(let rows): table(rows)
        }
    }

    private static func table(_ rows: [[String]]) -> String {
        guard let header = rows.first else { return "" }
        let line = { (cells: [String]) in "| " + cells.map { inline($0, breaks: " ") }.joined(separator: " | ") + " |" }
        return ([line(header), "|" + String(repeating: " --- |", count: header.count)] + rows.dropFirst().map(line)).joined(separator: "\n")
    }

    /// `text` escaped, its lines joined by `breaks` (a hard break by default) and each line after the
    /// first prefixed with `indent` (to stay inside a list item or a quote).
    static func inline(_ text: String, breaks: String = "\\\n", indent: String = "") -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { escapeLine(String($0)) }
            .joined(separator: breaks == " " ? " " : breaks + indent)
    }

    /// Backslash-escapes the ASCII punctuation that can start markup anywhere in a line; a line's
    /// leading spaces and tabs (an indented code block) and a leading marker that only a line's start
    /// makes special (`-`, `+`, `=`, `1.`, `1)`) are written so that they stay text.
    static func escapeLine(_ line: String) -> String {
        var out = ""
        var leading = true
        for character in line {
            if leading, character == " " { out += "&#32;"; continue }
            if leading, character == "\t" { out += "&#9;"; continue }
            if leading, "-+=".contains(character) { out += "\\" + String(character); leading = false; continue }
            leading = false
            out += anywhere.contains(character) ? "\\" + String(character) : String(character)
        }
        return escapeOrderedMarker(out)
    }

    private static let anywhere: Set<Character> = ["\\", "`", "*", "_", "[", "]", "<", ">", "#", "!", "|", "~", "&"]

    /// `12.` or `12)` at a line's start would open an ordered list: escape the punctuation.
    private static func escapeOrderedMarker(_ line: String) -> String {
        let digits = line.prefix { $0.isASCII && $0.isNumber }
        guard (1...9).contains(digits.count), let next = line.dropFirst(digits.count).first, next == "." || next == ")" else { return line }
        return digits + "\\" + line.dropFirst(digits.count)
    }
}
