/// One tool as an MCP server lists it (`tools/list`, the `Tool` type of both revisions): a name, an
/// optional title and description, and an input schema of type object. Members this client does not
/// use (annotations, icons, output schema, execution, `_meta`) are allowed and left aside: the
/// annotations in particular are the server's claims about itself (readOnlyHint, openWorldHint),
/// which the specification says not to trust from a server one does not trust, so the tool's effect
/// comes from the owner's configuration instead.
public struct MCPToolDefinition: Sendable, Equatable {
    public let name: String
    public let description: String
    public let inputSchema: JSONValue

    /// MCP's tool-name rule (2025-11-25): 1 to 128 of A-Z, a-z, 0-9, '_', '-', '.'.
    static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        return (1...128).contains(bytes.count) && bytes.allSatisfy {
            (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || (0x30...0x39).contains($0)
                || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
        }
    }

    init(_ value: JSONValue) throws(AgentsError) {
        guard let name = value["name"]?.stringValue, Self.isValidName(name) else {
            throw JSONRPCMessage.violation("a tool whose name is not 1 to 128 of A-Z, a-z, 0-9, '_', '-', '.'")
        }
        guard let schema = value["inputSchema"], schema["type"] == .string("object") else {
            throw JSONRPCMessage.violation("a tool whose inputSchema is not a schema of type object")
        }
        let text = value["description"]?.stringValue ?? value["title"]?.stringValue ?? ""
        self.name = name
        self.description = ToolDescriptor.printable(text, maximumBytes: ToolDescriptor.maximumSummaryBytes)
        self.inputSchema = schema
    }
}
