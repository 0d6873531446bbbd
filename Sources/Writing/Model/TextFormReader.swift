import Registers

/// Gathers the lines of the text form into blocks (the grammar in `PlainText`): a paragraph, a
/// field and a quote take lines until a blank line or a line of another kind; a heading and a list
/// item are one line each, continued only by `\` lines; a table takes its rows.
struct TextFormReader {
    struct Gathered {
        var kind: BlockKind
        var lines: [String] = []
        var rows: [[String]] = []
        var text: String { lines.joined(separator: "\n") }
    }

    let fields: TextFormFields
    private var blocks: [Gathered] = []
    private var open: Gathered?

    init(fields: TextFormFields) { self.fields = fields }

    mutating func read(_ line: String, number: Int) throws(WritingError) {
        switch try TextFormLine(line, fields: fields, number: number) {
        case .blank: close()
        case .heading(let level, let text): start(.heading(level: level), text)
        case .listItem(let text): start(.listItem, text)
        case .field(let slot, let text): start(.field(slot), text)
        case .quote(let text): continueOrStart(.quote, text, continuing: [.quote])
        case .row(let cells):
            if open?.kind != .table { close(); open = Gathered(kind: .table) }
            open?.rows.append(cells)
        case .more(let text): continueOrStart(.paragraph, text, continuing: [.paragraph, .listItem, .heading(level: 0)] + fieldKinds)
        case .text(let text): continueOrStart(.paragraph, text, continuing: [.paragraph] + fieldKinds)
        }
    }

    mutating func finish() -> [Block.Parts] {
        close()
        return blocks.map { Block.Parts(kind: $0.kind, text: $0.kind == .table ? "" : $0.text, rows: $0.rows) }
    }

    private var fieldKinds: [BlockKind] { open.map { if case .field = $0.kind { [$0.kind] } else { [] } } ?? [] }

    /// Adds `text` as a line of the open block when its kind is one of `continuing` (a heading of
    /// any level is `.heading(level: 0)`), or else starts a block of `kind` with it.
    private mutating func continueOrStart(_ kind: BlockKind, _ text: String, continuing: [BlockKind]) {
        if let current = open?.kind, continuing.contains(where: { $0 == current || (isHeading($0) && isHeading(current)) }) {
            open?.lines.append(text)
        } else {
            start(kind, text)
        }
    }

    private mutating func start(_ kind: BlockKind, _ text: String) {
        close()
        open = Gathered(kind: kind, lines: [text])
    }

    private mutating func close() {
        if let open { blocks.append(open) }
        open = nil
    }

    private func isHeading(_ kind: BlockKind) -> Bool {
        if case .heading = kind { return true }
        return false
    }
}

extension Block {
    /// A block's kind, text and cells, before it has an id.
    struct Parts: Equatable {
        let kind: BlockKind
        let text: String
        let rows: [[String]]
    }
}
