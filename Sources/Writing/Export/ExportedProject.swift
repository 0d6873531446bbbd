import Registers

/// A project as it leaves the vault: its name and every folder and document in binder order, each
/// with its depth (1 at the top). A folder carries no content; its title heads what it holds.
///
/// Internal to the module, as are the renderers that make it a file (`MarkdownExport`,
/// `HTMLExport`): the only public way to a project's export is `ProjectExport`, which passes it
/// through the egress funnel, so no caller of the library can get the file's bytes around it.
struct ExportedProject: Sendable, Equatable {
    struct Item: Sendable, Equatable {
        let kind: NodeKind
        let title: String
        let depth: Int
        let content: DocumentContent

        init(kind: NodeKind, title: String, depth: Int, content: DocumentContent = DocumentContent()) {
            self.kind = kind
            self.title = title
            self.depth = depth
            self.content = content
        }
    }

    let title: String
    let items: [Item]
    /// The register's labels for field blocks (a field's slot name when the register hides it).
    let labels: FieldEditor

    init(title: String, items: [Item], labels: FieldEditor) {
        self.title = title
        self.items = items
        self.labels = labels
    }

    /// The heading level of an item's title: the project's title is level 1, a top-level item 2,
    /// one level more per folder, never past HTML's and CommonMark's last level, 6.
    static func titleLevel(of item: Item) -> Int { min(item.depth + 1, 6) }

    func label(_ slot: FieldSlot) -> String { labels.label(slot) ?? slot.rawValue }
}

extension WritingStore {
    /// `project` read whole for an export, in one transaction's view: its name, its binder in
    /// reading order, and each document's blocks.
    func exportedProject(_ project: WritingProject) throws -> ExportedProject {
        let nodes = try nodes(in: project.id)
        let outline = try outline(of: project.id)
        let items = try zip(nodes, outline).map { node, line in
            let content = node.kind == .scene ? try documentContent(of: node.id, in: project.id) : DocumentContent()
            return ExportedProject.Item(kind: node.kind, title: node.title, depth: line.depth, content: content)
        }
        return ExportedProject(title: try name(of: project), items: items, labels: FieldEditor(project.register))
    }
}
