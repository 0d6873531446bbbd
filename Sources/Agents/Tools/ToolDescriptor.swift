/// One tool as the registry holds it and a model is shown it: a name, what it does, the JSON
/// Schema of its arguments, its effect, and where it runs.
public struct ToolDescriptor: Sendable {
    public let name: String
    /// What the tool does, for the model. For an MCP tool this is the server's text: bounded and
    /// stripped of control characters when read, and never trusted (§18.3).
    public let summary: String
    /// The schema as given, to send to a model; `schema` is the same read for checking.
    public let inputSchema: JSONValue
    public let schema: ToolSchema
    public let effect: ToolEffect
    public let origin: ToolOrigin

    public static let maximumNameBytes = 64
    public static let maximumSummaryBytes = 2048

    public init(name: String, summary: String, inputSchema: JSONValue, effect: ToolEffect, origin: ToolOrigin) throws(AgentsError) {
        guard Self.isValidName(name) else {
            throw AgentsError(.invalidToolName, "a tool name is 1 to \(Self.maximumNameBytes) of A-Z, a-z, 0-9, '_' and '-'")
        }
        guard inputSchema["type"] == .string("object") else {
            throw AgentsError(.unsupportedSchema, "a tool's input schema must be of type object")
        }
        self.name = name
        self.summary = Self.printable(summary, maximumBytes: Self.maximumSummaryBytes)
        self.inputSchema = inputSchema
        self.schema = try ToolSchema(inputSchema)
        self.effect = effect
        self.origin = origin
    }

    static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        return (1...maximumNameBytes).contains(bytes.count) && bytes.allSatisfy {
            (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-")
        }
    }

    /// `text` without control characters (newlines and tabs become spaces), cut at a character
    /// boundary to at most `maximumBytes`.
    static func printable(_ text: String, maximumBytes: Int) -> String {
        var result = String.UnicodeScalarView()
        var bytes = 0
        for scalar in text.unicodeScalars {
            let kept: Unicode.Scalar = scalar == "\n" || scalar == "\t" || scalar == "\r" ? " " : scalar
            guard kept.properties.generalCategory != .control, kept.properties.generalCategory != .format else { continue }
            bytes += kept.utf8.count
            guard bytes <= maximumBytes else { break }
            result.append(kept)
        }
        return String(result)
    }
}

/// Where a tool runs.
public enum ToolOrigin: Sendable, Equatable {
    /// In this process, on the vault (reading a document, writing a branch).
    case vault
    /// On an MCP server the owner added: the server's name and the tool's own name there.
    case mcp(server: String, tool: String)
}
