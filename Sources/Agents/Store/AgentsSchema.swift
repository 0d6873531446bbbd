import CryptoVault

/// The Agents module's tables, as one named list of migrations (SECURITY.md §4.1.1). Append only.
public enum AgentsSchema {
    public static let module = ModuleSchema(module: "agents", migrations: [
        // The MCP servers the owner added (SECURITY.md §18.2), owned by MCPServerStore. The command
        // is clear text (a command line, which the owner is told not to put secrets in); its adding
        // and removing are audit entries carrying its SHA-256.
        NamedMigration("mcp-servers-1", """
            CREATE TABLE agents_mcp_servers (
                name TEXT PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 32),
                command TEXT NOT NULL,
                effect TEXT NOT NULL CHECK (effect IN ('read-only', 'open-world')),
                added_at INTEGER NOT NULL
            );
            """),
    ])
}

/// The actions Agents records.
extension AuditAction {
    /// An MCP server added: its name, its tools' effect and its command's SHA-256.
    public static let agentsMCPAdd = AuditAction("agents.mcp-add")
    public static let agentsMCPRemove = AuditAction("agents.mcp-rm")
}
