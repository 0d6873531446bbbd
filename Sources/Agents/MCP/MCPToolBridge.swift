import PrivilegedSession

/// Puts an MCP server's tools in a `ToolRegistry`, so an agent calls them through the registry's one
/// door like the vault's own tools, and sends each call's arguments through the egress funnel.
///
/// A tool is registered as `mcp__SERVER__TOOL` with the effect the owner gave the server (open-world
/// unless said otherwise). A tool the registry cannot hold (a name with '.', a name too long once
/// prefixed, a schema outside the checked subset) is skipped and reported, never registered
/// unchecked. What a tool returns is untrusted content (§18.4): it enters the task's taint.
public struct MCPToolBridge: Sendable {
    public let client: MCPClient
    public let funnel: EgressFunnel

    /// A tool the server listed that was not registered, and why.
    public struct Skipped: Sendable, Equatable {
        public let tool: String
        public let reason: String
    }

    public init(client: MCPClient, funnel: EgressFunnel) {
        self.client = client
        self.funnel = funnel
    }

    public static func registryName(server: String, tool: String) -> String { "mcp__\(server)__\(tool)" }

    /// Lists the server's tools and registers each one it can; returns those it skipped.
    @discardableResult
    public func register(into registry: inout ToolRegistry) throws(AgentsError) -> [Skipped] {
        let (descriptors, skipped) = try Self.descriptors(of: client)
        var refused = skipped
        for descriptor in descriptors {
            do throws(AgentsError) {
                try registry.register(descriptor, handler: MCPToolHandler(client: client, funnel: funnel))
            } catch {
                refused.append(Skipped(tool: descriptor.name, reason: error.message))
            }
        }
        return refused
    }

    /// The server's tools as the registry would hold them, and those it could not hold, with why.
    public static func descriptors(of client: MCPClient) throws(AgentsError) -> ([ToolDescriptor], [Skipped]) {
        var descriptors: [ToolDescriptor] = []
        var skipped: [Skipped] = []
        let server = client.configuration
        for tool in try client.listTools() {
            do throws(AgentsError) {
                descriptors.append(try ToolDescriptor(name: registryName(server: server.name, tool: tool.name), summary: tool.description,
                                                      inputSchema: tool.inputSchema, effect: server.effect,
                                                      origin: .mcp(server: server.name, tool: tool.name)))
            } catch {
                skipped.append(Skipped(tool: tool.name, reason: error.message))
            }
        }
        return (descriptors, skipped)
    }
}

/// Runs one MCP tool call: the arguments to the funnel as an egress request for this server, with
/// the compartments of everything the task has read; only what the funnel releases is sent.
struct MCPToolHandler: ToolHandler {
    let client: MCPClient
    let funnel: EgressFunnel

    func run(_ tool: ToolDescriptor, arguments: JSONValue, taint: TaskTaint) throws -> ToolOutput {
        guard case .mcp(_, let name) = tool.origin else { throw AgentsError(.unknownTool, "'\(tool.name)' is not an MCP tool") }
        guard !taint.compartments.isEmpty else {
            throw AgentsError(.toolRefused, "an MCP call from a task that names no compartment: the funnel could not judge it")
        }
        let outcome = try funnel.submit(EgressRequest(destination: client.destination, compartments: taint.compartments,
                                                      payload: JSONWriter.bytes(arguments)))
        guard let released = outcome.released else {
            throw AgentsError(.egressRefused, "the egress funnel refused the arguments for '\(tool.name)' (\(outcome.decision.rawValue))")
        }
        let result = try client.callTool(name, arguments: released)
        let text = result.isError ? "The tool reported an error: \(result.text)" : result.text
        return ToolOutput(text: text, provenance: .outside)
    }
}
