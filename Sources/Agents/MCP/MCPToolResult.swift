/// What a `tools/call` returned (`CallToolResult`): the text of its content blocks, and whether the
/// server marked it an error (a tool error is for the model to see, not a protocol failure).
///
/// Content blocks: `text` is kept; `resource` keeps its `text` when it has one; `image`, `audio`,
/// `resource_link` and binary resources are replaced by a one-line note, since nothing here shows
/// them and a model reading a link could be led to fetch it. `structuredContent` is used as text
/// only when there is no text block (the specification asks servers to send both). All the text
/// together is bounded by `MCPLimits.maximumOutputBytes`.
public struct MCPToolResult: Sendable, Equatable {
    public let text: String
    public let isError: Bool

    init(_ result: JSONValue, maximumBytes: Int) throws(AgentsError) {
        guard let blocks = result["content"]?.arrayValue else { throw JSONRPCMessage.violation("a tool result without a content array") }
        var parts: [String] = []
        for block in blocks { parts.append(try Self.text(of: block)) }
        if parts.allSatisfy(\.isEmpty), let structured = result["structuredContent"] {
            parts = [JSONWriter.string(structured)]
        }
        let text = parts.filter { !$0.isEmpty }.joined(separator: "\n")
        guard text.utf8.count <= maximumBytes else {
            throw AgentsError(.mcpTooLarge, "the tool returned more than \(maximumBytes) bytes of text")
        }
        if let flag = result["isError"], flag.boolValue == nil { throw JSONRPCMessage.violation("an isError that is not a boolean") }
        self.text = text
        self.isError = result["isError"]?.boolValue ?? false
    }

    private static func text(of block: JSONValue) throws(AgentsError) -> String {
        switch block["type"]?.stringValue {
        case "text"?:
            guard let text = block["text"]?.stringValue else { throw JSONRPCMessage.violation("a text block without text") }
            return text
        case "resource"?:
            return block["resource"]?["text"]?.stringValue ?? "[a binary resource the tool returned was left out]"
        case "image"?: return "[an image the tool returned was left out]"
        case "audio"?: return "[audio the tool returned was left out]"
        case "resource_link"?: return "[a link the tool returned was left out]"
        default: throw JSONRPCMessage.violation("a content block of no known type")
        }
    }
}
