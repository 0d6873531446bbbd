import Registers

/// Turns libcmark's tree, visited in order, into the model's flat blocks (the rules are in
/// `MarkdownImport`'s comment). Each leaf (a paragraph, heading, code or HTML block, a thematic
/// break) becomes text, and its nearest container decides where that text goes: a list item's
/// block, a quote block, or at the top level a paragraph or heading of its own.
struct MarkdownBlocks {
    private enum Container {
        case quote
        case list(ordered: Bool, next: Int, closer: Character)
        /// A list item: the index of its block, the number it starts with ("3. ", or "" in a
        /// bullet list), and whether a leaf has given it text yet.
        case item(block: Int, number: String, filled: Bool)
    }

    private(set) var blocks: [(kind: BlockKind, text: String)] = []
    private var containers: [Container] = []
    /// The leaf being read: its kind (a paragraph or a heading) and the text of its inlines so far.
    private var leaf: (kind: BlockKind, text: String)?
    /// UTF-8 bytes of text so far: an autolink is written out as `[target](target)` and a link
    /// reference repeats its target, so the output is bounded as it grows, not only the input.
    private var bytes = 0

    mutating func visit(_ node: MarkdownNode, entering: Bool) throws {
        switch node {
        case .document, .unknown: break
        case .blockQuote: entering ? containers.append(.quote) : close()
        case .list(let ordered, let start, let closer): entering ? containers.append(.list(ordered: ordered, next: start, closer: closer)) : close()
        case .item: if entering { try openItem() } else { closeItem() }
        case .paragraph: try leaf(.paragraph, entering)
        case .heading(let level): try leaf(.heading(level: level), entering)
        case .codeBlock(let text), .htmlBlock(let text): try add(.paragraph, text)
        // A scene break in a manuscript; the model has no rule block, so it is a paragraph of its own.
        case .thematicBreak: try add(.paragraph, "* * *")
        default: try inline(node, entering)
        }
    }

    private mutating func close() { containers.removeLast() }

    private mutating func openItem() throws {
        try checkBlockCount()
        var number = ""
        if case .list(true, let next, let closer) = containers.last {
            number = "\(next)\(closer)"
            containers[containers.count - 1] = .list(ordered: true, next: next + 1, closer: closer)
        }
        blocks.append((.listItem, number))
        containers.append(.item(block: blocks.count - 1, number: number, filled: false))
    }

    /// A bullet item that no leaf gave text (`-` alone, or only a list inside it) would be an empty
    /// block: it is dropped. Every item opened inside it is closed by now, so no container holds an
    /// index past it. An empty ordered item keeps its number, which is its text.
    private mutating func closeItem() {
        if case .item(let block, _, _)? = containers.popLast(), blocks[block].text.isEmpty {
            blocks.remove(at: block)
        }
    }

    private mutating func leaf(_ kind: BlockKind, _ entering: Bool) throws {
        if entering { leaf = (kind, ""); return }
        guard let finished = leaf else { return }
        leaf = nil
        try add(finished.kind, finished.text)
    }

    /// Inline markup is kept as the Markdown that writes it (`*a*`, `**b**`, `` `c` ``, `[d](url)`):
    /// the model's text has no inline formatting, and its export escapes every such character, so
    /// the writer's emphasis and links stay visible and import the same again after an export.
    private mutating func inline(_ node: MarkdownNode, _ entering: Bool) throws {
        guard leaf != nil else { return }
        let breaks = leaf?.kind == .paragraph ? "\n" : " "   // a heading is one line
        let piece: String = switch node {
        case .text(let text), .htmlInline(let text): text
        case .softBreak, .lineBreak: breaks
        case .code(let code): Self.codeSpan(code)
        case .emphasis: "*"
        case .strong: "**"
        case .link(let url, let title): entering ? "[" : "](" + Self.target(url, title) + ")"
        case .image(let url, let title): entering ? "![" : "](" + Self.target(url, title) + ")"
        default: ""
        }
        leaf?.text += piece
        try checkSize(leaf?.text.utf8.count ?? 0)
    }

    /// Refuses text past a document's size, counting `pending` bytes not yet in a block.
    private func checkSize(_ pending: Int) throws {
        guard bytes + pending <= WritingLimits.maximumStoredDocumentBytes else {
            throw WritingError(.documentTooLarge, "the imported text comes to more than \(WritingLimits.maximumStoredDocumentBytes) bytes "
                               + "(autolinks and link references repeat their targets); one text holds at most that")
        }
    }

    /// Puts a finished leaf's text where its nearest container says.
    private mutating func add(_ kind: BlockKind, _ raw: String) throws {
        let text = Self.normalized(raw)
        if let bad = text.unicodeScalars.first(where: { ImportedText.isRefused($0) || $0 == "\r" }) {
            throw WritingError(.invalidText, "the Markdown writes the control character \(ImportedText.name(bad)) "
                               + "(a character reference such as &#1;); a document cannot hold it")
        }
        try checkSize(text.utf8.count)
        bytes += text.utf8.count
        // A leaf with no text (`#` alone, an empty code block, `&#32;`) makes no block: the model
        // has nothing to show for it, and Markdown cannot write an empty block back.
        guard !text.isEmpty else { return }
        switch containers.last {
        case .item(let block, let number, let filled)?:
            blocks[block].text = filled ? blocks[block].text + "\n" + text : (number.isEmpty ? text : number + " " + text)
            containers[containers.count - 1] = .item(block: block, number: number, filled: true)
        case .quote?:
            try checkBlockCount()
            blocks.append((.quote, text))
        default:
            try checkBlockCount()
            blocks.append((kind, text))
        }
    }

    /// Refuses a block past a document's limit before it is added.
    private func checkBlockCount() throws {
        guard blocks.count < WritingLimits.maximumBlocks else {
            throw WritingError(.tooManyBlocks, "the Markdown makes more than \(WritingLimits.maximumBlocks) blocks; one text holds at most that")
        }
    }

    /// Trailing spaces and tabs of each line, and blank lines at either end, are dropped: Markdown
    /// cannot write them (a paragraph's are trimmed when it is read), so keeping them would make a
    /// block change on its way out and back in.
    static func normalized(_ text: String) -> String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> Substring in
            guard let end = line.lastIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
            return line[...end]
        }
        guard let first = lines.firstIndex(where: { !$0.isEmpty }), let last = lines.lastIndex(where: { !$0.isEmpty }) else { return "" }
        return lines[first...last].joined(separator: "\n")
    }

    private static func codeSpan(_ code: String) -> String {
        var longest = 0, run = 0
        for character in code {
            run = character == "`" ? run + 1 : 0
            longest = max(longest, run)
        }
        let fence = String(repeating: "`", count: longest + 1)
        let padding = code.hasPrefix("`") || code.hasSuffix("`") ? " " : ""
        return fence + padding + code + padding + fence
    }

    private static func target(_ url: String, _ title: String) -> String {
        title.isEmpty ? url : url + " \"" + title + "\""
    }
}
