internal import CCmark

/// One node of libcmark's tree, as Swift values (no C type leaves this file).
enum MarkdownNode: Equatable {
    case document, blockQuote, item, paragraph, emphasis, strong, softBreak, lineBreak, thematicBreak, unknown
    case list(ordered: Bool, start: Int, closer: Character)
    case heading(level: Int)
    case codeBlock(String), htmlBlock(String), text(String), code(String), htmlInline(String)
    case link(url: String, title: String), image(url: String, title: String)

    /// A node with children: the walk enters and exits it. Every other node is visited once.
    var isContainer: Bool {
        switch self {
        case .document, .blockQuote, .item, .paragraph, .emphasis, .strong, .list, .heading, .link, .image: true
        default: false
        }
    }
}

/// The C side of the Markdown import: libcmark parses, its iterator walks the tree without recursion,
/// and the tree is freed before this returns, whatever happens.
///
/// Where the text goes: cmark copies the input into its own line buffers and every node's text into
/// its own heap blocks (ordinary malloc memory, not locked: it allocates per node). They are
/// allocated through `ccmark_zeroing_allocator` (Sources/CCmark/shim.h), which zeroes each block
/// before freeing it, so once the parse is over no copy of the document is left in freed heap memory.
/// The Swift strings handed to `visit` are ordinary strings, as the model's API gives them (§14.3).
enum CmarkParse {
    /// Parses `bytes` as CommonMark and calls `visit(node, entering)` in document order: a container
    /// with `entering` true, its children, then with `entering` false; any other node once. Refuses,
    /// before visiting anything deeper, containers nested more than `maximumDepth` deep.
    static func walk(_ bytes: UnsafeRawBufferPointer, maximumDepth: Int, _ visit: (MarkdownNode, Bool) throws -> Void) throws {
        let allocator = UnsafeMutablePointer<cmark_mem>.allocate(capacity: 1)
        allocator.initialize(to: ccmark_zeroing_allocator())
        defer { allocator.deallocate() }
        guard let root = parse(bytes, allocator) else {
            throw WritingError(.invalidText, "libcmark returned no document")
        }
        defer { cmark_node_free(root) }
        guard let iterator = cmark_iter_new(root) else { throw WritingError(.invalidText, "libcmark could not walk the Markdown") }
        defer { cmark_iter_free(iterator) }
        var depth = 0
        while case let event = cmark_iter_next(iterator), event != CMARK_EVENT_DONE {
            let node = self.node(cmark_iter_get_node(iterator))
            let entering = event == CMARK_EVENT_ENTER
            if node.isContainer { depth += entering ? 1 : -1 }
            guard depth <= maximumDepth else {
                throw WritingError(.nestingTooDeep, "the Markdown nests quotes, lists and emphasis more than \(maximumDepth) deep; "
                                   + "at most \(maximumDepth) levels are imported")
            }
            try visit(node, entering)
        }
    }

    /// The default options: no smart punctuation, no normalisation; raw HTML is kept as the literal
    /// text it is (the importer never renders it).
    private static func parse(_ bytes: UnsafeRawBufferPointer, _ allocator: UnsafeMutablePointer<cmark_mem>) -> OpaquePointer? {
        guard let parser = cmark_parser_new_with_mem(CMARK_OPT_DEFAULT, allocator) else { return nil }
        defer { cmark_parser_free(parser) }
        if let base = bytes.baseAddress { cmark_parser_feed(parser, base.assumingMemoryBound(to: CChar.self), bytes.count) }
        return cmark_parser_finish(parser)
    }

    private static func node(_ node: OpaquePointer?) -> MarkdownNode {
        switch cmark_node_get_type(node) {
        case CMARK_NODE_DOCUMENT: .document
        case CMARK_NODE_BLOCK_QUOTE: .blockQuote
        case CMARK_NODE_LIST: .list(ordered: cmark_node_get_list_type(node) == CMARK_ORDERED_LIST, start: Int(cmark_node_get_list_start(node)),
                                    closer: cmark_node_get_list_delim(node) == CMARK_PAREN_DELIM ? ")" : ".")
        case CMARK_NODE_ITEM: .item
        case CMARK_NODE_CODE_BLOCK: .codeBlock(literal(node))
        case CMARK_NODE_HTML_BLOCK: .htmlBlock(literal(node))
        case CMARK_NODE_PARAGRAPH: .paragraph
        case CMARK_NODE_HEADING: .heading(level: Int(cmark_node_get_heading_level(node)))
        case CMARK_NODE_THEMATIC_BREAK: .thematicBreak
        case CMARK_NODE_TEXT: .text(literal(node))
        case CMARK_NODE_SOFTBREAK: .softBreak
        case CMARK_NODE_LINEBREAK: .lineBreak
        case CMARK_NODE_CODE: .code(literal(node))
        case CMARK_NODE_HTML_INLINE: .htmlInline(literal(node))
        case CMARK_NODE_EMPH: .emphasis
        case CMARK_NODE_STRONG: .strong
        case CMARK_NODE_LINK: .link(url: string(cmark_node_get_url(node)), title: string(cmark_node_get_title(node)))
        case CMARK_NODE_IMAGE: .image(url: string(cmark_node_get_url(node)), title: string(cmark_node_get_title(node)))
        default: .unknown
        }
    }

    private static func literal(_ node: OpaquePointer?) -> String { string(cmark_node_get_literal(node)) }

    private static func string(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }
}
