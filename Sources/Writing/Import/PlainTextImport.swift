import CryptoVault

/// A plain text file as a document's paragraphs: blocks are separated by blank lines (lines of only
/// spaces and tabs), and a paragraph's lines are kept, joined by line breaks. Nothing else is read as
/// markup (a `#` or `- ` line is text; `doc write`'s text form, `PlainText`, reads those). CR LF and
/// a lone CR are line feeds, and a leading byte order mark is dropped. The same refusals as every
/// import (`ImportedText`).
public enum PlainTextImport {
    public static func parse(_ text: SecureBytes) throws -> DocumentContent {
        let string = try text.withUnsafeBytes { bytes in
            try ImportedText.check(bytes)
            return String(decoding: bytes, as: UTF8.self)
        }
        let lines = string.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        let content = DocumentContent(blocks: try paragraphs(lines.hasPrefix("\u{FEFF}") ? String(lines.dropFirst()) : lines).map {
            Block(id: try BlockID.random(), kind: .paragraph, text: $0)
        })
        try WritingStore.check(content)
        return content
    }

    private static func paragraphs(_ text: String) -> [String] {
        var paragraphs: [String] = []
        var open: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) {
                if !open.isEmpty { paragraphs.append(open.joined(separator: "\n")) }
                open = []
            } else {
                open.append(line)
            }
        }
        if !open.isEmpty { paragraphs.append(open.joined(separator: "\n")) }
        return paragraphs
    }
}
