import Agents
import CryptoVault
import Foundation
import PrivilegedSession
import TestSupport

/// The Python that runs the test MCP servers: the build folder's virtual environment (where `make
/// deps` installs PyPI's `mcp`), else the system's for the standard-library-only hostile server.
enum MCPTestServers {
    static let venvPython = PackageFiles.url(".build/venv/bin/python").path

    static func script(_ name: String) -> String {
        PackageFiles.url("Tests/AgentsTests/MCPServers/\(name)").path
    }

    static var environment: [String: String] { MCPClient.defaultEnvironment(from: ProcessInfo.processInfo.environment) }

    /// The hostile server in `mode` (see hostile_mcp_server.py), with short limits so a test that
    /// waits for a bound waits seconds, not minutes.
    static func hostile(_ mode: String, limits: MCPLimits = shortLimits) throws -> MCPClient {
        let python = FileManager.default.isExecutableFile(atPath: venvPython) ? venvPython : "python3"
        return try MCPClient(try MCPServerConfiguration(name: "web", command: [python, script("hostile_mcp_server.py"), mode]),
                             environment: environment, limits: limits)
    }

    static var shortLimits: MCPLimits {
        var limits = MCPLimits()
        limits.probeTimeout = .seconds(3)
        limits.startTimeout = .seconds(6)
        limits.requestTimeout = .seconds(2)
        limits.maximumOutputBytes = 64 << 10
        return limits
    }
}

/// A vault with a privileged compartment (`chart`) and an ordinary one (`blog`), its funnel, and a
/// task taint that has read `blog`, for calling MCP tools through the registry.
final class MCPVaultFixture: AuditedVaultFixture {
    lazy var funnel: EgressFunnel = try! EgressFunnel(vault: unlocked)

    func registry(for client: MCPClient) throws -> (ToolRegistry, [MCPToolBridge.Skipped]) {
        var registry = ToolRegistry()
        let skipped = try MCPToolBridge(client: client, funnel: funnel).register(into: &registry)
        return (registry, skipped)
    }

    func taint(reading compartments: [VaultCompartment]) -> TaskTaint {
        var taint = TaskTaint()
        taint.absorb(.vault(compartments))
        return taint
    }
}
