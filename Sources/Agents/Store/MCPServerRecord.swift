import AuditChain
import CryptoVault

/// Checks a stored MCP server against the audit log before anything starts it (SECURITY.md §18.2).
///
/// A stored server is a command vaultctl will run, kept in a file someone
/// else might write. So a server is started only when the latest `agents.mcp-add`/`agents.mcp-rm`
/// entry for its name is an add whose detail hashes (keyed, so computing them needs the unlocked
/// vault) match the row's name, effect and command: a row added by editing the file, or changed
/// after it was added, has no such entry.
public enum MCPServerRecord {
    public static func isOnRecord(_ server: MCPServerConfiguration, in unlocked: UnlockedVault) throws -> Bool {
        try onRecord([server], in: unlocked)[0]
    }

    /// For each server, whether the audit log vouches for it (the log read once).
    public static func onRecord(_ servers: [MCPServerConfiguration], in unlocked: UnlockedVault) throws -> [Bool] {
        let key = try unlocked.auditKeys().hashingKey
        let entries = try AuditLogReader(vault: unlocked.vault).entries()
            .filter { $0.action == AuditAction.agentsMCPAdd.name || $0.action == AuditAction.agentsMCPRemove.name }
        return servers.map { server in
            let name = AuditLog.detailHash(name: "name", value: server.name, key: key)
            guard let latest = entries.last(where: { entry in entry.detailHashes.contains { $0.name == "name" && $0.hash == name } }),
                  latest.action == AuditAction.agentsMCPAdd.name else { return false }
            return MCPServerStore.details(server).allSatisfy { detail in
                latest.detailHashes.contains { $0.name == detail.name && $0.hash == AuditLog.detailHash(name: detail.name, value: detail.value, key: key) }
            }
        }
    }
}
