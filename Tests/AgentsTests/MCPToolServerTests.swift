import Agents
import CryptoVault
import Foundation
import PrivilegedSession
import Testing

/// The bridge against a real MCP server: a tool server written with PyPI's `mcp` SDK
/// (MCPServers/notes_tool_server.py, run by the build folder's Python), over stdio, in both
/// protocol revisions, every call through the registry and the egress funnel.
@Suite(.serialized, .enabled(if: FileManager.default.isExecutableFile(atPath: MCPTestServers.venvPython),
                             "needs .build/venv (make deps installs PyPI's mcp there)"))
struct MCPToolServerTests {
    let fixture = try! MCPVaultFixture()

    func server(legacy: Bool = false) throws -> MCPClient {
        let command = [MCPTestServers.venvPython, MCPTestServers.script("notes_tool_server.py")] + (legacy ? ["--legacy"] : [])
        var limits = MCPLimits()
        limits.startTimeout = .seconds(60)   // the SDK's imports take a few seconds on a loaded machine
        return try MCPClient(try MCPServerConfiguration(name: "notes", command: command), environment: MCPTestServers.environment, limits: limits)
    }

    func call(_ registry: ToolRegistry, _ tool: String, _ arguments: String, reading compartments: [VaultCompartment]) throws -> ToolOutput {
        var taint = fixture.taint(reading: compartments)
        return try registry.call("mcp__notes__\(tool)", arguments: Array(arguments.utf8), taint: &taint)
    }

    @Test func theSDKServerIsReachedStatelesslyAndItsToolsRunThroughTheRegistry() throws {
        let client = try server()
        #expect(client.revision == .stateless)
        #expect(client.serverName == "notes-tools")
        let (registry, skipped) = try fixture.registry(for: client)
        #expect(skipped.isEmpty)
        #expect(registry.descriptors.map(\.name) == ["mcp__notes__add", "mcp__notes__cite", "mcp__notes__echo", "mcp__notes__fail", "mcp__notes__word_count"])
        #expect(registry.descriptors.allSatisfy { $0.effect == .openWorld }, "an MCP server's tools are open-world unless the owner says otherwise")
        #expect(try call(registry, "add", #"{"a":2,"b":40}"#, reading: [fixture.blog]).text == "42")
        #expect(try call(registry, "word_count", #"{"text":"one two three"}"#, reading: [fixture.blog]).text == "3")
        #expect(try call(registry, "cite", #"{"case":"Roe v. Wade","year":1973}"#, reading: [fixture.blog]).text == "Roe v. Wade (1973)")
        #expect(try call(registry, "cite", #"{"case":"Marbury","year":null}"#, reading: [fixture.blog]).text == "Marbury")
        let output = try call(registry, "word_count", #"{"text":"a b"}"#, reading: [fixture.blog])
        #expect(output.provenance == .outside, "what an MCP tool returns is untrusted")
    }

    /// Figures, printed: how long the SDK server takes to start and answer, and a call's round trip
    /// through the registry, the funnel (a recorded egress decision) and the server (20 calls).
    @Test func startAndCallTimesArePrinted() throws {
        let clock = ContinuousClock()
        var client: MCPClient!
        let start = try clock.measure { client = try server() }
        let (registry, _) = try fixture.registry(for: client)
        var calls: [Duration] = []
        for index in 0..<20 {
            var text = ""
            calls.append(try clock.measure { text = try call(registry, "add", #"{"a":\#(index),"b":1}"#, reading: [fixture.blog]).text })
            #expect(text == "\(index + 1)")
        }
        calls.sort()
        print("MCP figures: SDK server start to a stateless session \(start); tools/call through registry+funnel+server: "
              + "median \(calls[10]), slowest \(calls[19]) over 20 calls")
    }

    @Test func theLegacyHandshakeIsUsedWhenTheServerDoesNotAnswerDiscover() throws {
        let client = try server(legacy: true)
        #expect(client.revision == .legacy)
        let (registry, _) = try fixture.registry(for: client)
        #expect(try call(registry, "add", #"{"a":1,"b":1}"#, reading: [fixture.blog]).text == "2")
    }

    @Test func aToolErrorComesBackAsTextForTheModelNotAsAFailure() throws {
        let (registry, _) = try fixture.registry(for: try server())
        let output = try call(registry, "fail", #"{"reason":"no such case"}"#, reading: [fixture.blog])
        #expect(output.text.hasPrefix("The tool reported an error:"))
        #expect(output.text.contains("fail"))
    }

    @Test func argumentsThatDoNotMatchTheSchemaNeverReachTheServer() throws {
        let (registry, _) = try fixture.registry(for: try server())
        let error = agentsError { try call(registry, "add", #"{"a":"two","b":1}"#, reading: [fixture.blog]) }
        #expect(error?.code == .invalidArguments)
        #expect(error?.message.contains("$.a (expected integer)") == true)
    }

    /// The arguments go through the funnel: an email address in an ordinary compartment's text is
    /// redacted before the server sees it (the echo tool shows what it got), and the decision is on
    /// the audit record; privileged content is refused and nothing is sent.
    @Test func everyCallIsAnEgressDecisionAndOnlyWhatTheFunnelReleasesIsSent() throws {
        let (registry, _) = try fixture.registry(for: try server())
        let echoed = try call(registry, "echo", #"{"text":"Write to jane.doe@example.com today"}"#, reading: [fixture.blog])
        #expect(!echoed.text.contains("jane.doe@example.com"))
        #expect(echoed.text.contains("[EMAIL]"), "\(echoed.text)")
        let error = agentsError { try call(registry, "echo", #"{"text":"session notes"}"#, reading: [fixture.chart]) }
        #expect(error?.code == .egressRefused)
        let decisions = try EgressLog.items(of: fixture.unlocked).map(\.record)
        #expect(decisions.map(\.destination) == ["model:mcp.notes", "model:mcp.notes"])
        #expect(Set(decisions.map(\.decision)) == [.redact, .refuse])
    }
}
