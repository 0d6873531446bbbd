/// The project flattened into what both export formats write, in order: the shape of a page rather
/// than of the binder. Consecutive list items make one list, so each format can open and close it
/// once; a document's own headings keep their level (the writer chose it).
enum ExportPart: Equatable {
    case heading(level: Int, text: String)
    case paragraph(String)
    case list([String])
    case quote(String)
    /// Cells by row, the first row the header, every row padded to the widest.
    case table([[String]])
    case field(label: String, text: String)

    static func parts(of project: ExportedProject) -> [ExportPart] {
        var parts: [ExportPart] = [.heading(level: 1, text: project.title)]
        for item in project.items {
            parts.append(.heading(level: ExportedProject.titleLevel(of: item), text: item.title))
            for block in item.content.blocks { append(block, project, to: &parts) }
        }
        return parts
    }

    private static func append(_ block: Block, _ project: ExportedProject, to parts: inout [ExportPart]) {
        switch block.kind {
        case .paragraph: parts.append(.paragraph(block.text))
        case .heading(let level): parts.append(.heading(level: level, text: block.text))
        case .quote: parts.append(.quote(block.text))
        case .field(let slot): parts.append(.field(label: project.label(slot), text: block.text))
        case .table: parts.append(.table(padded(block.rows)))
        case .listItem:
            if case .list(let items) = parts.last {
                parts[parts.count - 1] = .list(items + [block.text])
            } else {
                parts.append(.list([block.text]))
            }
        }
    }

    private static func padded(_ rows: [[String]]) -> [[String]] {
        let width = max(1, rows.map(\.count).max() ?? 1)
        return rows.map { $0 + Array(repeating: "", count: width - $0.count) }
    }
}
