import CryptoVault
import Registers

/// The plain text form of a document, as `vaultctl doc write` reads it and `doc show` prints it:
///
/// - blocks are separated by blank lines; the lines of a paragraph are kept, joined by line breaks;
/// - a line `#` to `######` then a space is a heading of that level, a block of its own;
/// - a line `- ` is a list item, a block of its own (items may follow one another with no blank line);
/// - lines `> ` make a quote (consecutive ones one quote, their line breaks kept);
/// - a table prints as `| cell | cell |` lines and a field block as `Label: text` (neither is parsed back:
///   they are paragraphs when read).
///
/// Input must be UTF-8 with no NUL and no control character but tab, line feed and carriage return
/// (CR LF and a lone CR are read as LF); anything else is refused as `.invalidText`, and a text over
/// `WritingLimits.maximumStoredDocumentBytes` as `.documentTooLarge`, before any parsing.
public enum PlainText {
    /// The blocks of `text`, read where it lies (locked memory, as a command reads its input: no
    /// ordinary copy of the bytes is made), each with a fresh id (`DocumentContent.reusingIDs(of:)`
    /// keeps the ids of blocks that did not change). The blocks' texts are strings, as the model's
    /// API gives them everywhere (SECURITY.md §14.3).
    public static func parse(_ text: SecureBytes) throws -> DocumentContent {
        try text.withUnsafeBytes { try parse($0) }
    }

    /// The blocks of bytes already in ordinary memory (a test's text, a fuzzer's input).
    public static func parse(_ bytes: [UInt8]) throws -> DocumentContent {
        try bytes.withUnsafeBytes { try parse($0) }
    }

    static func parse(_ bytes: UnsafeRawBufferPointer) throws -> DocumentContent {
        guard bytes.count <= WritingLimits.maximumStoredDocumentBytes else {
            throw WritingError(.documentTooLarge, "the text is \(bytes.count) bytes; a document holds at most \(WritingLimits.maximumStoredDocumentBytes)")
        }
        var blocks: [Block] = []
        for (kind, text) in parseLines(try lines(bytes)) {
            blocks.append(Block(id: try BlockID.random(), kind: kind, text: text))
        }
        return DocumentContent(blocks: blocks)
    }

    /// The lines of `bytes` (LF, CR LF or a lone CR ends one), each checked and decoded on its own,
    /// so the whole text is never copied into one ordinary string. A line break byte never occurs
    /// inside a UTF-8 sequence, so splitting before decoding is exact.
    static func lines(_ bytes: UnsafeRawBufferPointer) throws -> [String] {
        var lines: [String] = []
        var start = 0, index = 0
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == 0x0A || byte == 0x0D else { index += 1; continue }
            lines.append(try line(UnsafeRawBufferPointer(rebasing: bytes[start..<index])))
            index += byte == 0x0D && index + 1 < bytes.count && bytes[index + 1] == 0x0A ? 2 : 1
            start = index
        }
        lines.append(try line(UnsafeRawBufferPointer(rebasing: bytes[start...])))
        return lines
    }

    private static func line(_ bytes: UnsafeRawBufferPointer) throws -> String {
        guard let line = String(validating: bytes, as: UTF8.self) else {
            throw WritingError(.invalidText, "the text is not valid UTF-8")
        }
        if let bad = line.unicodeScalars.first(where: isRefused) {
            throw WritingError(.invalidText, "the text holds the control character U+\(String(bad.value, radix: 16, uppercase: true))")
        }
        return line
    }

    /// The text of `content`; a field block is labelled by `labels` (its slot's name when the register hides it).
    public static func render(_ content: DocumentContent, labels: FieldEditor? = nil) -> String {
        var out = ""
        var previous: BlockKind?
        for block in content.blocks {
            if let previous { out += previous == .listItem && block.kind == .listItem ? "\n" : "\n\n" }
            out += render(block, labels: labels)
            previous = block.kind
        }
        return out.isEmpty ? "" : out + "\n"
    }

    static func render(_ block: Block, labels: FieldEditor?) -> String {
        switch block.kind {
        case .paragraph: block.text
        case .heading(let level): String(repeating: "#", count: level) + " " + block.text
        case .listItem: "- " + block.text
        case .quote: block.text.split(separator: "\n", omittingEmptySubsequences: false).map { "> " + $0 }.joined(separator: "\n")
        case .table: block.rows.map { "| " + $0.joined(separator: " | ") + " |" }.joined(separator: "\n")
        case .field(let slot): (labels?.label(slot) ?? slot.rawValue) + ": " + block.text
        }
    }

    private static func isRefused(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control && !["\t", "\n", "\r"].contains(scalar)
    }

    /// The grammar above, line by line: a paragraph or quote gathers lines until a blank line or a
    /// line of another kind; a heading and a list item are one line each.
    private static func parseLines(_ lines: [String]) -> [(BlockKind, String)] {
        var blocks: [(BlockKind, String)] = []
        var open: (kind: BlockKind, lines: [String])?
        func close() {
            if let open { blocks.append((open.kind, open.lines.joined(separator: "\n"))) }
            open = nil
        }
        for line in lines {
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) { close(); continue }
            if let level = headingLevel(line) {
                close()
                blocks.append((.heading(level: level), String(line.dropFirst(level + 1))))
            } else if line.hasPrefix("- ") {
                close()
                blocks.append((.listItem, String(line.dropFirst(2))))
            } else if line.hasPrefix("> ") || line == ">" {
                if open?.kind != .quote { close(); open = (.quote, []) }
                open?.lines.append(String(line.dropFirst(line == ">" ? 1 : 2)))
            } else {
                if open?.kind != .paragraph { close(); open = (.paragraph, []) }
                open?.lines.append(line)
            }
        }
        close()
        return blocks
    }

    private static func headingLevel(_ line: String) -> Int? {
        let hashes = line.prefix { $0 == "#" }.count
        guard (1...6).contains(hashes), line.dropFirst(hashes).first == " " else { return nil }
        return hashes
    }
}

extension DocumentContent {
    /// This content with the ids of `old`'s blocks where they carry on: a block equal to one of
    /// `old` (kind, text and cells) in the blocks' longest common run keeps its id, and between two
    /// such runs the changed blocks take the replaced ones' ids in order. So a one-paragraph edit of
    /// a parsed text keeps every id and reseals one block.
    public func reusingIDs(of old: DocumentContent) -> DocumentContent {
        struct Key: Hashable { let kind: BlockKind; let text: String; let rows: [[String]] }
        var symbols = SymbolTable<Key>()
        let oldSymbols = old.blocks.map { symbols.symbol(Key(kind: $0.kind, text: $0.text, rows: $0.rows)) }
        let newSymbols = blocks.map { symbols.symbol(Key(kind: $0.kind, text: $0.text, rows: $0.rows)) }
        var ids = blocks.map(\.id)
        var oldIndex = 0, newIndex = 0
        func reuse(_ count: Int) {
            for offset in 0..<count { ids[newIndex + offset] = old.blocks[oldIndex + offset].id }
        }
        for hunk in SequenceDiff.hunks(oldSymbols, newSymbols) {
            reuse(hunk.oldStart - oldIndex)   // the equal run before the hunk
            newIndex = hunk.newStart
            oldIndex = hunk.oldStart
            reuse(min(hunk.oldCount, hunk.newCount))
            oldIndex = hunk.oldStart + hunk.oldCount
            newIndex = hunk.newStart + hunk.newCount
        }
        reuse(old.blocks.count - oldIndex)
        return DocumentContent(blocks: zip(blocks, ids).map { Block(id: $1, kind: $0.kind, text: $0.text, rows: $0.rows) })
    }
}
