import CryptoVault
import Registers

/// The text form of a document, as `vaultctl doc write` reads it and `doc show` prints it
/// (SECURITY.md §14.7). Every block `doc show` prints reads back as the same block (kind, field
/// slot, text and cells), so a document can be shown, edited and written with nothing lost:
///
///     text       = [block *(separator block)] [LF]
///     separator  = LF *(blank LF)                ; a blank line: only spaces and tabs
///     heading    = 1*6"#" SP line *(LF more)     ; one block each
///     list-item  = "- " line *(LF more)          ; one block each; items may follow one another directly
///     quote      = quote-line *(LF quote-line)   ; quote-line = ">" / "> " line
///     table      = row *(LF row)                 ; row = "|" *(SP cell SP "|"); in a cell "\|" is a bar,
///                                                ;   "\\" a backslash, "\n" a line break
///     field      = label ":" [SP line] *(LF text-line)   ; label: the register's label of a document
///                                                ;   field (`Date of service`), or any slot's own name
///     paragraph  = text-line *(LF text-line)
///     text-line  = more / any line that does not begin another kind
///     more       = "\" line                      ; the line as it is: a line that would otherwise begin
///                                                ;   another kind, be blank or start with "\"
///
/// A line that starts with `|` and is not a well-formed row is refused, with its line number (not
/// read as a paragraph: that would lose the table silently). A `\` line after a heading or list
/// item continues it (a line break in its text); after a blank line, a quote or a table it starts
/// a paragraph. Printing joins blocks with a blank line, except two list items, or two fields, in a
/// row (consecutive lines). A table with no rows prints as one row of no cells, `|`: the one shape
/// the form does not keep (the model's tables have rows).
///
/// Input must be UTF-8 with no NUL and no control character but tab, line feed and carriage return
/// (CR LF and a lone CR are read as LF); anything else is refused as `.invalidText`, and a text over
/// `WritingLimits.maximumStoredDocumentBytes` as `.documentTooLarge`, before any parsing. Errors
/// name a line by its number, never its text (a privileged document's words stay out of them).
public enum PlainText {
    /// The blocks of `text`, read where it lies (locked memory, as a command reads its input: no
    /// ordinary copy of the bytes is made), each with a fresh id (`DocumentContent.reusingIDs(of:)`
    /// keeps the ids of blocks that did not change). Field lines are read with `labels`, the
    /// project's register's (nil: by the slots' own names only, as `render` without labels prints).
    public static func parse(_ text: SecureBytes, labels: FieldEditor? = nil) throws -> DocumentContent {
        try text.withUnsafeBytes { try parse($0, labels: labels) }
    }

    /// The blocks of bytes already in ordinary memory (a test's text, a fuzzer's input).
    public static func parse(_ bytes: [UInt8], labels: FieldEditor? = nil) throws -> DocumentContent {
        try bytes.withUnsafeBytes { try parse($0, labels: labels) }
    }

    static func parse(_ bytes: UnsafeRawBufferPointer, labels: FieldEditor?) throws -> DocumentContent {
        guard bytes.count <= WritingLimits.maximumStoredDocumentBytes else {
            throw WritingError(.documentTooLarge, "the text is \(bytes.count) bytes; one text holds at most \(WritingLimits.maximumStoredDocumentBytes)")
        }
        var reader = TextFormReader(fields: TextFormFields(labels))
        for (index, line) in try lines(bytes).enumerated() {
            try reader.read(line, number: index + 1)
        }
        return DocumentContent(blocks: try reader.finish().map { Block(id: try BlockID.random(), kind: $0.kind, text: $0.text, rows: $0.rows) })
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

    private static func isRefused(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control && !["\t", "\n", "\r"].contains(scalar)
    }
}

extension DocumentContent {
    /// This content with the ids of `old`'s blocks where they carry on: a block equal to one of
    /// `old` (kind, text and cells) in the blocks' longest common run keeps its id, and between two
    /// such runs the changed blocks take the replaced ones' ids in order. So a one-paragraph edit of
    /// a parsed text keeps every id and reseals one block. A block replaced by several (a split)
    /// gives its id to the piece that keeps most of its text (the longest common start plus end, the
    /// first piece on a tie): a blank line typed at a paragraph's start leaves the id on the words,
    /// not on the new empty piece, so another device's concurrent typing in that paragraph merges
    /// instead of meeting every word re-typed in a new block (SECURITY.md §19.3; session 19, trace).
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
            if hunk.oldCount == 1 && hunk.newCount > 1 {
                let pieces = blocks[newIndex..<(newIndex + hunk.newCount)].map(\.text)
                ids[newIndex + Self.keepingMost(of: old.blocks[oldIndex].text, pieces)] = old.blocks[oldIndex].id
            } else {
                reuse(min(hunk.oldCount, hunk.newCount))
            }
            oldIndex = hunk.oldStart + hunk.oldCount
            newIndex = hunk.newStart + hunk.newCount
        }
        reuse(old.blocks.count - oldIndex)
        return DocumentContent(blocks: zip(blocks, ids).map { Block(id: $1, kind: $0.kind, text: $0.text, rows: $0.rows) })
    }

    /// The index of the piece sharing most of `text`: its common start plus common end (UTF-8
    /// bytes, the two not overlapping), the first on a tie.
    static func keepingMost(of text: String, _ pieces: [String]) -> Int {
        let old = Array(text.utf8)
        func shared(_ piece: String) -> Int {
            let new = Array(piece.utf8), limit = min(old.count, new.count)
            var start = 0, end = 0
            while start < limit && old[start] == new[start] { start += 1 }
            while end < limit - start && old[old.count - 1 - end] == new[new.count - 1 - end] { end += 1 }
            return start + end
        }
        var best = 0, most = -1
        for (index, piece) in pieces.enumerated() where shared(piece) > most { (best, most) = (index, shared(piece)) }
        return best
    }
}
