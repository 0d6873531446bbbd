import Writing

/// A plain text held as code points (the traces' positions count them) and written to the store as
/// paragraph blocks, one per run of text between two line feeds in a row ("\n\n"), so joining the
/// blocks' texts with "\n\n" gives the text back exactly. Blocks keep their ids across versions:
/// the paragraphs before and after the changed ones keep theirs, the changed ones reuse the old
/// ids in order, so a one-paragraph edit reseals one block, as an editor's would.
final class ParagraphDocument {
    private(set) var scalars: [Unicode.Scalar]
    private(set) var blocks: [Block] = []

    init(_ text: String) {
        scalars = Array(text.unicodeScalars)
    }

    var text: String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        return String(view)
    }

    /// Applies one patch; a patch that reaches past the end is the trace's fault.
    func apply(_ patch: EditingTrace.Patch) throws {
        guard patch.position + patch.deleted <= scalars.count else {
            throw EditingTrace.Malformed(description: "a patch at \(patch.position) deletes past the end (\(scalars.count))")
        }
        scalars.replaceSubrange(patch.position..<(patch.position + patch.deleted), with: patch.inserted)
    }

    /// The text's paragraphs as blocks, ids carried over from the last call's.
    func content() throws -> DocumentContent {
        let paragraphs = Self.paragraphs(of: scalars)
        let old = blocks.map(\.text)
        let prefix = zip(old, paragraphs).prefix { Self.same($0, $1) }.count
        let suffix = zip(old.dropFirst(prefix).reversed(), paragraphs.dropFirst(prefix).reversed()).prefix { Self.same($0, $1) }.count
        var next: [Block] = Array(blocks.prefix(prefix))
        let reusable = blocks[prefix..<(blocks.count - suffix)]
        for (offset, text) in paragraphs[prefix..<(paragraphs.count - suffix)].enumerated() {
            let id = offset < reusable.count ? reusable[reusable.startIndex + offset].id : try BlockID.random()
            next.append(Block(id: id, kind: .paragraph, text: text))
        }
        next += blocks.suffix(suffix)
        blocks = next
        return DocumentContent(blocks: next)
    }

    /// Byte for byte: Swift's `==` on strings is canonical equivalence, and a version must hold the
    /// code points written.
    static func same(_ a: String, _ b: String) -> Bool { a.utf8.elementsEqual(b.utf8) }

    /// The text between each "\n\n" (an empty text is one empty paragraph).
    static func paragraphs(of scalars: [Unicode.Scalar]) -> [String] {
        var paragraphs: [String] = []
        var current = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            if scalars[index] == "\n", index + 1 < scalars.count, scalars[index + 1] == "\n" {
                paragraphs.append(String(current))
                current = String.UnicodeScalarView()
                index += 2
                continue
            }
            current.append(scalars[index])
            index += 1
        }
        paragraphs.append(String(current))
        return paragraphs
    }

    /// The text a stored version holds: its blocks' texts joined as `paragraphs` split them.
    static func text(of content: DocumentContent) -> String {
        content.blocks.map(\.text).joined(separator: "\n\n")
    }
}
