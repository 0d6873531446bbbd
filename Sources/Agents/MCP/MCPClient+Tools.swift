import PrivilegedSession

extension MCPClient {
    /// Every tool the server lists, following `nextCursor` for at most `limits.maximumPages` pages
    /// and `limits.maximumTools` tools. A name listed twice is a protocol violation: which of the two
    /// would a call reach?
    public func listTools() throws(AgentsError) -> [MCPToolDefinition] {
        try withConnection { (connection) throws(AgentsError) -> [MCPToolDefinition] in
            var tools: [MCPToolDefinition] = []
            var cursor: String?
            for _ in 0..<limits.maximumPages {
                let params: [(key: String, value: JSONValue)] = cursor.map { [(key: "cursor", value: .string($0))] } ?? []
                let result = try connection.request("tools/list", params: params, timeout: limits.requestTimeout)
                guard let listed = result["tools"]?.arrayValue else { throw JSONRPCMessage.violation("a tools/list result without a tools array") }
                for value in listed { tools.append(try MCPToolDefinition(value)) }
                guard tools.count <= limits.maximumTools else {
                    throw AgentsError(.mcpTooLarge, "the MCP server lists more than \(limits.maximumTools) tools")
                }
                guard let next = result["nextCursor"], next != .null else {
                    guard Set(tools.map(\.name)).count == tools.count else { throw JSONRPCMessage.violation("a tool listed twice") }
                    return tools
                }
                guard let text = next.stringValue, !text.isEmpty, text.utf8.count <= 1024 else {
                    throw JSONRPCMessage.violation("a nextCursor that is not a short string")
                }
                cursor = text
            }
            throw AgentsError(.mcpTooLarge, "the MCP server's tool list runs past \(limits.maximumPages) pages")
        }
    }
}

extension MCPClient {
    /// This server's destination at the egress funnel: a payload for a call must be released for it.
    public var destination: EgressDestination { EgressDestination(kind: .model, id: "mcp.\(configuration.name)") }

    /// Calls `tool` with the arguments the funnel released for this server: a JSON object.
    public func callTool(_ tool: String, arguments released: ReleasedPayload) throws(AgentsError) -> MCPToolResult {
        guard released.destination == destination else {
            throw AgentsError(.egressRefused, "arguments released for \(released.destination) cannot go to \(destination)")
        }
        let arguments: JSONValue
        do { arguments = try StrictJSONParser(limits: ToolRegistry.argumentLimits).parse(released.bytes) } catch {
            throw AgentsError(.egressRefused, "the released arguments are not JSON (redaction may have cut through one): \(error.message)")
        }
        guard let members = arguments.objectValue else { throw AgentsError(.invalidArguments, "a tool's arguments are a JSON object") }
        return try withConnection { (connection) throws(AgentsError) -> MCPToolResult in
            let result = try connection.request("tools/call", params: [(key: "name", value: .string(tool)),
                                                                         (key: "arguments", value: .object(members))],
                                                timeout: limits.requestTimeout)
            return try MCPToolResult(result, maximumBytes: limits.maximumOutputBytes)
        }
    }
}
