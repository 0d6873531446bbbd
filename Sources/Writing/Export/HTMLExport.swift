/// A project as one standalone HTML page: UTF-8 declared, the project's name as its title, and a
/// policy that lets the page load and run nothing (it is text; a hostile title cannot turn it into
/// a script). Every piece of the writer's text is escaped (`&`, `<`, `>`, `"`, `'`); a line break
/// inside a block is a `<br>`. Reached through `ProjectExport` only (its output is plaintext that
/// leaves the vault: it passes the egress funnel there).
enum HTMLExport {
    static func render(_ project: ExportedProject) -> String {
        let head = """
            <!DOCTYPE html>
            <html>
            <head>
            <meta charset="utf-8">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'">
            <title>\(escape(project.title))</title>
            </head>
            <body>

            """
        return head + ExportPart.parts(of: project).map(render).joined(separator: "\n") + "\n</body>\n</html>\n"
    }

    static func render(_ part: ExportPart) -> String {
        switch part {
        case .heading(let level, let text): "<h\(level)>\(escape(text))</h\(level)>"
        case .paragraph(let text): "<p>\(lines(text))</p>"
        case .list(let items): "<ul>\n" + items.map { "<li>\(lines($0))</li>\n" }.joined() + "</ul>"
        case .quote(let text): "<blockquote><p>\(lines(text))</p></blockquote>"
        case .field(let label, let text): "<p><strong>\(escape(label)):</strong> \(lines(text))</p>"
        case .table(let rows): table(rows)
        }
    }

    private static func table(_ rows: [[String]]) -> String {
        guard let header = rows.first else { return "" }
        let row = { (cells: [String], tag: String) in "<tr>" + cells.map { "<\(tag)>\(lines($0))</\(tag)>" }.joined() + "</tr>\n" }
        return "<table>\n<thead>\n" + row(header, "th") + "</thead>\n<tbody>\n" + rows.dropFirst().map { row($0, "td") }.joined() + "</tbody>\n</table>"
    }

    private static func lines(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { escape(String($0)) }.joined(separator: "<br>\n")
    }

    /// The five characters that can end text in HTML content or in an attribute value.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
