import CryptoVault

/// The owner's MCP servers, in `agents_mcp_servers` (this type is the table's one reader and writer).
/// Adding and removing one are vault changes, each with its audit entry in the same transaction;
/// a stored command is read back strictly, as anything read from the file is.
public enum MCPServerStore {
    public static let maximumServers = 32

    public static func add(_ server: MCPServerConfiguration, in transaction: VaultTransaction, clock: VaultClock = .system) throws {
        let database = transaction.database
        guard try database.queryOne("SELECT 1 FROM agents_mcp_servers WHERE name = ?", [.text(server.name)]) == nil else {
            throw AgentsError(.invalidServerConfiguration, "an MCP server named '\(server.name)' is already added")
        }
        guard try count(database) < maximumServers else {
            throw AgentsError(.invalidServerConfiguration, "at most \(maximumServers) MCP servers can be added")
        }
        let command = JSONWriter.string(.array(server.command.map(JSONValue.string)))
        try database.query("INSERT INTO agents_mcp_servers (name, command, effect, added_at) VALUES (?, ?, ?, ?)",
                             [.text(server.name), .text(command), .text(server.effect.rawValue), .integer(clock.now())])
        try transaction.record(.agentsMCPAdd, details: details(server))
    }

    /// Removes `name`; false if no server has that name (nothing recorded then).
    @discardableResult
    public static func remove(_ name: String, in transaction: VaultTransaction) throws -> Bool {
        guard let server = try read(transaction.database).first(where: { $0.name == name }) else { return false }
        try transaction.database.query("DELETE FROM agents_mcp_servers WHERE name = ?", [.text(name)])
        try transaction.record(.agentsMCPRemove, details: details(server))
        return true
    }

    public static func isAdded(_ name: String, in vault: Vault) throws -> Bool {
        try vault.read { try $0.queryOne("SELECT 1 AS added FROM agents_mcp_servers WHERE name = ?", [.text(name)]) != nil }
    }

    /// Every server, by name.
    public static func all(in vault: Vault) throws -> [MCPServerConfiguration] {
        try vault.read { try read($0) }
    }

    static func read(_ database: Database) throws -> [MCPServerConfiguration] {
        try database.query("SELECT name, command, effect FROM agents_mcp_servers ORDER BY name").map { row in
            let parser = StrictJSONParser(limits: .init(maximumBytes: 1 << 20, maximumDepth: 2, maximumMembers: MCPServerConfiguration.maximumArguments,
                                                        maximumStringBytes: MCPServerConfiguration.maximumArgumentBytes))
            let stored = try parser.parse(try row.text("command"))
            guard let arguments = stored.arrayValue, case let command = arguments.compactMap({ $0.stringValue }), command.count == arguments.count,
                  let effect = ToolEffect(rawValue: try row.text("effect")) else {
                throw AgentsError(.invalidServerConfiguration, "a stored MCP server is not well formed")
            }
            return try MCPServerConfiguration(name: try row.text("name"), command: command, effect: effect)
        }
    }

    private static func count(_ database: Database) throws -> Int64 {
        try database.queryOne("SELECT count(*) AS n FROM agents_mcp_servers")?.integer("n") ?? 0
    }

    /// The audit details of an add or a remove: name, effect, and the SHA-256 of the stored command.
    static func details(_ server: MCPServerConfiguration) -> [VaultEvent.Detail] {
        let command = JSONWriter.string(.array(server.command.map(JSONValue.string)))
        return [.init("name", server.name), .init("effect", server.effect.rawValue),
                .init("command_sha256", ByteEncoding.hex(SHA256.hash(Array(command.utf8))))]
    }
}
