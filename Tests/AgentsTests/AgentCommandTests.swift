import Agents
import CryptoVault
import Foundation
import Testing
import TestSupport

/// `vaultctl ai agents`, `ai tools` and `ai mcp add|list|rm`, run as a user runs them.
@Suite(.serialized, .enabled(if: FileManager.default.isExecutableFile(atPath: MCPTestServers.venvPython),
                             "needs .build/venv (make deps installs PyPI's mcp there)"))
struct AgentCommandTests {
    func add(_ vault: CLIVault, _ name: String, _ command: [String], options: [String] = []) throws -> CLI.Result {
        try CLI.run(["ai", "mcp", "add", "--vault", vault.directory, "--passphrase-file", vault.passphraseFile] + options + [name, "--"] + command)
    }

    @Test func agentsAreListedPerRegisterInTheRegistersWords() throws {
        let result = try CLI.run(["ai", "agents", "--register", "legal"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("issue-spotter\tlegal\tcoauthor.summarize\ttools: read-only\tLegal issue spotter"))
        #expect(result.stdout.contains("List each legal issue the document raises"))
        #expect(!result.stdout.contains("{"))
        let json = try CLI.run(["ai", "agents", "--json"])
        let agents = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(Set(agents.compactMap { $0["register"] as? String }).count == 10)
        #expect(try CLI.run(["ai", "agents", "--register", "poetry"]).status == 64)
    }

    @Test func anMCPServerIsAddedAfterItAnswersListedWithItsToolsAndRemoved() throws {
        let vault = try CLIVault()
        let added = try add(vault, "notes", [MCPTestServers.venvPython, MCPTestServers.script("notes_tool_server.py")])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("Added MCP server 'notes': 5 tools, open-world."))
        #expect(added.stdout.contains("mcp__notes__word_count\topen-world\tCounts the words in a text."))
        let listed = try vault.run(["ai", "mcp", "list"], unlock: false)
        #expect(listed.stdout.hasPrefix("notes\topen-world\t\(MCPTestServers.venvPython) "))
        let tools = try vault.run(["ai", "tools", "--json"])
        #expect(tools.status == 0, "\(tools.stderr)")
        let servers = try #require(try JSONSerialization.jsonObject(with: Data(tools.stdout.utf8)) as? [[String: Any]])
        #expect(servers.first?["revision"] as? String == "2026-07-28")
        #expect((servers.first?["tools"] as? [[String: Any]])?.count == 5)
        let audit = try vault.run(["audit", "log"])
        #expect(audit.stdout.contains("agents.mcp-add"))
        #expect(try add(vault, "notes", ["true"]).status == 73, "a name is added once")
        #expect(try vault.run(["ai", "mcp", "rm", "notes"]).status == 0)
        #expect(try vault.run(["ai", "mcp", "list"], unlock: false).stdout == "No MCP servers.\n")
        #expect(try vault.run(["ai", "mcp", "rm", "notes"]).status == 66)
    }

    @Test func aServerThatDoesNotAnswerIsNotAdded() throws {
        let vault = try CLIVault()
        let result = try add(vault, "broken", ["/nonexistent/server"])
        #expect(result.status == 69)
        #expect(result.stderr.contains("vaultctl: error: the MCP server did not start: cannot start the MCP server '/nonexistent/server'"))
        #expect(try vault.run(["ai", "mcp", "list"], unlock: false).stdout == "No MCP servers.\n")
        let badName = try add(vault, "Bad Name", ["true"])
        #expect(badName.status == 64 && badName.stderr.contains("an MCP server name is 1 to 32"))
    }

    @Test func aHostileServerIsListedWithWhyItFailedAndTheRestStillList() throws {
        let vault = try CLIVault()
        let python = MCPTestServers.venvPython
        #expect(try add(vault, "web", [python, MCPTestServers.script("hostile_mcp_server.py"), "lying"]).status == 0)
        #expect(try add(vault, "notes", [python, MCPTestServers.script("notes_tool_server.py")], options: ["--read-only"]).status == 0)
        let tools = try vault.run(["ai", "tools"])
        #expect(tools.status == 0)
        #expect(tools.stdout.contains("mcp server notes\tread-only\tMCP 2026-07-28"))
        #expect(tools.stdout.contains("mcp__notes__add\tread-only"))
        #expect(tools.stdout.contains("mcp server web\topen-world\tMCP 2025-11-25"))
        #expect(tools.stdout.contains("mcp__web__fetch\topen-world"))
    }
}

extension AgentCommandTests {
    /// A server row added or changed by editing the vault's file has no matching agents.mcp-add
    /// entry: ai tools lists it as not vouched for and never runs its command.
    @Test func aServerRowEditedInTheFileIsNeverStarted() throws {
        let vault = try CLIVault()
        #expect(try add(vault, "notes", [MCPTestServers.venvPython, MCPTestServers.script("notes_tool_server.py")]).status == 0)
        let marker = vault.root + "/ran"
        let command = JSONWriter.string(.array(["/bin/sh", "-c", "touch \(marker)"].map(JSONValue.string)))
        let database = try Database(path: vault.directory + "/" + Vault.databaseName, create: false)
        try database.query("UPDATE agents_mcp_servers SET command = ? WHERE name = 'notes'", [.text(command)])
        try database.query("INSERT INTO agents_mcp_servers (name, command, effect, added_at) VALUES ('planted', ?, 'read-only', 0)", [.text(command)])
        let tools = try vault.run(["ai", "tools"])
        #expect(tools.status == 0, "\(tools.stderr)")
        #expect(tools.stdout.contains("mcp server notes\topen-world\tfailed: not started: no agents.mcp-add entry"))
        #expect(tools.stdout.contains("mcp server planted\tread-only\tfailed: not started: no agents.mcp-add entry"))
        #expect(!FileManager.default.fileExists(atPath: marker), "a command the audit log does not vouch for ran")
    }
}

/// The Agents module's table is read and written by its owner only (STYLE.md).
@Suite struct AgentsOwnedSQLTests {
    @Test func onlyMCPServerStoreNamesItsTable() throws {
        let reaching = try PackageFiles.swiftSources().filter { $0.text.contains("agents_mcp_servers") }.map(\.path)
        #expect(Set(reaching) == ["Sources/Agents/Store/MCPServerStore.swift", "Sources/Agents/Store/AgentsSchema.swift"])
    }
}
