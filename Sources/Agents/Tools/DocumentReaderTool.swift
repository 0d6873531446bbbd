import CryptoVault
import Writing

/// The vault's own read-only tool: an agent reads another document of its task's project by title.
///
/// It reads through the writing model (each read a `record.open` in the audit log, in the read's
/// transaction), only in the one project the task is about, and a privileged project's documents
/// only with the session the task was given (`access`): without one the read is refused by the
/// writing model, not by this tool. What it returns carries the project's compartment, so the
/// task's taint learns the lane has read privileged content (§18.4) and any later egress names it.
public struct DocumentReaderTool: ToolHandler {
    public static let name = "vault_read_document"
    /// What one read may return to a model: a long document is cut, and says so.
    public static let maximumCharacters = 20_000

    let vault: UnlockedVault
    let project: ProjectID
    let access: RecordAccess

    public init(vault: UnlockedVault, project: ProjectID, access: RecordAccess = .vault) {
        self.vault = vault
        self.project = project
        self.access = access
    }

    /// Its descriptor: read-only, one argument (the document's title).
    public static func descriptor() throws(AgentsError) -> ToolDescriptor {
        let schema = JSONValue.members([
            "type": .string("object"),
            "properties": .members(["title": .members(["type": .string("string"), "minLength": .number(1), "maxLength": .number(200),
                                                       "description": .string("the document's title, as the binder shows it")])]),
            "required": .array([.string("title")]),
            "additionalProperties": .bool(false),
        ])
        return try ToolDescriptor(name: name, summary: "Reads a document of this project by its title and returns its text.",
                                  inputSchema: schema, effect: .readOnly, origin: .vault)
    }

    public func run(_ tool: ToolDescriptor, arguments: JSONValue, taint: TaskTaint) throws -> ToolOutput {
        guard let title = arguments["title"]?.stringValue else { throw AgentsError(.invalidArguments, "a title is needed") }
        let (text, compartment) = try vault.transaction { transaction in
            let store = WritingStore(transaction, access: access)
            let project = try store.project(self.project)
            let matches = try store.nodes(in: self.project).filter { $0.kind == .scene && $0.title == title }
            guard matches.count == 1, let document = matches.first else {
                throw AgentsError(.invalidArguments, matches.isEmpty ? "no document of this project has that title" : "more than one document has that title")
            }
            return (PlainText.render(try store.documentContent(of: document.id, in: self.project)), project.compartment)
        }
        let cut = text.count > Self.maximumCharacters ? String(text.prefix(Self.maximumCharacters)) + "\n[cut: the document goes on]" : text
        return ToolOutput(text: cut, provenance: .vault([compartment]))
    }
}
