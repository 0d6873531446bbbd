import Agents
import CryptoVault
import Foundation

/// `vaultctl ai agents`, `ai tools`, `ai mcp add|list|rm`: the agents and tools side of the `ai`
/// group (the Assistant's `ai providers|lanes|run|log` are its own file).
enum AgentCommands {
    static let all = [agents, tools, mcpAdd, mcpList, mcpRemove]

    static let agents = Command("ai agents", synopsis: "list the starter agents of each register", about: """
        Lists the agents every project of a register starts with: name, title, lane, and the effects
        of the tools they may be offered. Their instructions are shown as the agent receives them,
        in the register's words (a legal agent is asked about documents and issues, not scenes).
        """, options: [RegisterLibrary.registerOption("agents")],
        json: true, examples: ["vaultctl ai agents --register legal", "vaultctl ai agents --json"]) { arguments in
            var presets = AIPreset.all
            if let name = arguments.value("--register") {
                guard let register = Register(rawValue: name) else { throw UsageError(message: "unknown register '\(name)'", usage: arguments.usage) }
                presets = [AIPreset(register)]
            }
            let agents = presets.flatMap(\.agents)
            if arguments.has("--json") { Output.json(agents.map(json)); return }
            for agent in agents {
                Output.line("\(agent.name)\t\(agent.register.rawValue)\t\(agent.lane)\ttools: \(effects(agent))\t\(agent.title)")
                Output.line("    \(agent.systemPrompt())")
            }
        }

    static let tools = Command("ai tools", synopsis: "list the tools agents may call, with each MCP server's", about: """
        Lists every tool in the registry, with its effect (read-only, writes-branch, open-world) and
        where it runs. Each MCP server added with 'vaultctl ai mcp add' is started, asked for its
        tools and stopped; a server that fails is listed with why, and a tool that cannot be offered
        (a schema the registry cannot check) with the reason.
        Before a server is started, its stored command is checked against its 'agents.mcp-add' audit
        entry (which needs the vault unlocked): one that the log does not vouch for is not started.
        """, options: Credentials.options + [Option("--no-start", "list the MCP servers without starting them (no unlock)")],
        json: true, examples: ["vaultctl ai tools", "vaultctl ai tools --no-start --json"]) { arguments in
            let listings: [ServerListing]
            if arguments.has("--no-start") {
                listings = try MCPServerStore.all(in: VaultLocation.open(arguments)).map { ServerListing(server: $0) }
            } else {
                let unlocked = try VaultLocation.unlock(arguments)
                let servers = try MCPServerStore.all(in: unlocked.vault)
                let vouched = try MCPServerRecord.onRecord(servers, in: unlocked)
                listings = zip(servers, vouched).map { server, onRecord in onRecord ? ServerListing.probing(server) : .unvouched(server) }
            }
            let servers = listings.map(\.server)
            if arguments.has("--json") { Output.json(listings.map(\.json)); return }
            if servers.isEmpty { Output.line("No MCP servers: 'vaultctl ai mcp add NAME -- COMMAND ARGS...' adds one."); return }
            for listing in listings { listing.print() }
        }

    static let mcpAdd = Command("ai mcp add", synopsis: "add an MCP server whose tools agents may call", usage: "NAME -- COMMAND [ARGS...]", about: """
        Adds an MCP server that vaultctl starts as COMMAND ARGS over standard input and output
        (protocol revisions 2026-07-28 and 2025-11-25). It is started once now, to check it answers
        and to list its tools, then stopped; nothing is added if that fails. Its tools are
        open-world (what they are sent may leave, what they return is untrusted) unless --read-only
        says they reach nothing outside; a server's own claims about its tools are not taken.
        Every call's arguments go through the egress funnel. The command is stored in the vault in
        clear: do not put a secret in it. NAME is 1 to 32 of a-z, 0-9 and '-'.
        """, options: Credentials.options + [Option("--read-only", "its tools read and compute only (they reach nothing outside)")],
        positionals: 2...(1 + MCPServerConfiguration.maximumArguments), json: true,
        examples: ["vaultctl ai mcp add citations -- python3 /opt/citations/server.py"]) { arguments in
            let name = arguments.positionals[0]
            let server = try MCPServerConfiguration(name: name, command: Array(arguments.positionals.dropFirst()),
                                                    effect: arguments.has("--read-only") ? .readOnly : .openWorld)
            // Checked first, so a name already taken is said before any server is started.
            guard try !MCPServerStore.isAdded(name, in: VaultLocation.open(arguments)) else {
                throw CommandError(message: "an MCP server named '\(name)' is already added", exitCode: .cannotCreate,
                                   hint: "'vaultctl ai mcp rm \(name)' first to replace it")
            }
            let listing = ServerListing.probing(server)
            if let failure = listing.failure { throw CommandError(message: "the MCP server did not start: \(failure)", exitCode: .unavailable) }
            let unlocked = try VaultLocation.unlock(arguments)
            try unlocked.transaction { try MCPServerStore.add(server, in: $0) }
            if arguments.has("--json") { Output.json(listing.json); return }
            Output.line("Added MCP server '\(name)': \(listing.tools.count) tools, \(server.effect.rawValue).")
            listing.print()
        }

    static let mcpList = Command("ai mcp list", synopsis: "list the MCP servers added", about: """
        Lists the MCP servers added with 'vaultctl ai mcp add': name, the effect of their tools, and
        the command that starts them. Nothing is started ('vaultctl ai tools' does).
        """, json: true, examples: ["vaultctl ai mcp list --json"]) { arguments in
            let servers = try MCPServerStore.all(in: VaultLocation.open(arguments))
            if arguments.has("--json") { Output.json(servers.map { ServerListing(server: $0).json }); return }
            if servers.isEmpty { Output.line("No MCP servers."); return }
            for server in servers { Output.line("\(server.name)\t\(server.effect.rawValue)\t\(server.command.joined(separator: " "))") }
        }

    static let mcpRemove = Command("ai mcp rm", synopsis: "remove an MCP server", usage: "NAME", about: """
        Removes the MCP server NAME: its tools are no longer offered to any agent.
        """, options: Credentials.options, positionals: 1...1, examples: ["vaultctl ai mcp rm citations"]) { arguments in
            let name = arguments.positionals[0]
            let removed = try VaultLocation.unlock(arguments).transaction { try MCPServerStore.remove(name, in: $0) }
            guard removed else { throw CommandError(message: "no MCP server named '\(name)'", exitCode: .noInput) }
            Output.line("Removed MCP server '\(name)'.")
        }

    private static func effects(_ agent: AIAgent) -> String {
        agent.toolEffects.sorted().map(\.rawValue).joined(separator: ",")
    }

    private static func json(_ agent: AIAgent) -> [String: Any] {
        ["name": agent.name, "title": agent.title, "register": agent.register.rawValue, "lane": agent.lane,
         "tool_effects": agent.toolEffects.sorted().map(\.rawValue), "instructions": agent.systemPrompt(),
         "budget": ["steps": agent.budget.steps, "tokens": agent.budget.tokens, "tool_calls": agent.budget.toolCalls]]
    }
}

/// One MCP server as the tool listing shows it: its tools, those skipped and why, or why it failed.
struct ServerListing {
    let server: MCPServerConfiguration
    var revision: String?
    var tools: [ToolDescriptor] = []
    var skipped: [MCPToolBridge.Skipped] = []
    var failure: String?

    init(server: MCPServerConfiguration) { self.server = server }

    /// A server the audit log does not vouch for: listed, never started.
    static func unvouched(_ server: MCPServerConfiguration) -> ServerListing {
        var listing = ServerListing(server: server)
        listing.failure = "not started: no agents.mcp-add entry in the audit log matches it (was the vault file edited?)"
        return listing
    }

    /// Starts the server, lists its tools as the registry would hold them, and stops it.
    static func probing(_ server: MCPServerConfiguration) -> ServerListing {
        var listing = ServerListing(server: server)
        do {
            let client = try MCPClient(server, environment: MCPClient.defaultEnvironment(from: ProcessInfo.processInfo.environment))
            defer { client.close() }
            listing.revision = client.revision.rawValue
            (listing.tools, listing.skipped) = try MCPToolBridge.descriptors(of: client)
        } catch {
            listing.failure = error.message
        }
        return listing
    }

    var json: [String: Any] {
        ["server": server.name, "command": server.command, "effect": server.effect.rawValue,
         "revision": revision.map { $0 as Any } ?? NSNull(), "error": failure.map { $0 as Any } ?? NSNull(),
         "tools": tools.map { ["name": $0.name, "effect": $0.effect.rawValue, "description": $0.summary] },
         "skipped": skipped.map { ["tool": $0.tool, "reason": $0.reason] }]
    }

    func print() {
        let state = failure.map { "failed: \($0)" } ?? revision.map { "MCP \($0)" } ?? "not started"
        Output.line("mcp server \(server.name)\t\(server.effect.rawValue)\t\(state)")
        for tool in tools { Output.line("  \(tool.name)\t\(tool.effect.rawValue)\t\(tool.summary)") }
        for tool in skipped { Output.line("  (not offered) \(tool.tool)\t\(tool.reason)") }
    }
}
