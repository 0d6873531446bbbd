import CryptoVault

/// A Markdown file (CommonMark, read by libcmark) as a document's blocks. The model's blocks are
/// flat and its text has no inline formatting, so:
///
/// - a heading is a heading of its level; a paragraph, a code block or an HTML block a paragraph (its
///   text literal, its lines kept); a thematic break the paragraph `* * *`;
/// - each list item is a list item block holding its paragraphs (joined by line breaks), an ordered
///   one starting with its number (`3. `); a list inside an item follows it as items of its own;
/// - every paragraph or heading inside a quote is a quote block (a nested quote too);
/// - inline markup stays as the Markdown that writes it (`*a*`, `**b**`, `` `c` ``, `[d](url)`);
///   character references and backslash escapes are decoded;
/// - trailing spaces of a line and blank lines at a block's ends are dropped (Markdown cannot write them);
/// - nothing makes an empty block: a heading, code block or paragraph with no text, and a bullet item
///   with none (`-` alone, or one holding only a list), are left out; an empty ordered item is its number.
///
/// CommonMark has no tables (they are an extension libcmark does not read): a pipe table is a paragraph.
/// So `MarkdownExport` followed by this import gives back the same blocks, except tables and fields,
/// which come back as paragraphs.
///
/// Refused before parsing: a file over `WritingLimits.maximumStoredDocumentBytes`, invalid UTF-8, a
/// NUL or another control character (`ImportedText`); while walking the tree: containers (quotes,
/// lists, emphasis) nested more than `maximumNesting` deep, text or blocks past a document's limits,
/// and a character reference to a control character.
public enum MarkdownImport {
    /// Nodes inside one another, the document counting as one: a quote in a quote in a list item's
    /// paragraph's emphasis is 6. Real documents stay under 20; libcmark itself nests without bound.
    public static let maximumNesting = 64

    /// The blocks of `text` (the file's bytes, read into locked memory), each with a fresh id.
    public static func parse(_ text: SecureBytes) throws -> DocumentContent {
        try text.withUnsafeBytes { bytes in
            try ImportedText.check(bytes)
            var builder = MarkdownBlocks()
            try CmarkParse.walk(bytes, maximumDepth: maximumNesting) { node, entering in try builder.visit(node, entering: entering) }
            let content = DocumentContent(blocks: try builder.blocks.map { Block(id: try BlockID.random(), kind: $0.kind, text: $0.text) })
            try WritingStore.check(content)
            return content
        }
    }
}
