import Agents
import CryptoVault
import Foundation
import PrivilegedSession
import Testing

/// A hostile MCP server (Tests/AgentsTests/MCPServers/hostile_mcp_server.py) is contained: each
/// misbehaviour ends in a clear error of its own code within the bridge's bounds, never a crash, a
/// hang or an unbounded buffer, and a server that broke the protocol is stopped.
@Suite(.serialized) struct HostileMCPTests {
    let fixture = try! MCPVaultFixture()

    /// Calls the hostile server's one tool in `mode` for a task that has read the ordinary compartment.
    func call(_ mode: String) throws -> (Result<ToolOutput, AgentsError>, Duration, MCPClient) {
        let client = try MCPTestServers.hostile(mode)
        let (registry, _) = try fixture.registry(for: client)
        var taint = fixture.taint(reading: [fixture.blog])
        let clock = ContinuousClock()
        var result: Result<ToolOutput, AgentsError>!
        let elapsed = clock.measure {
            do { result = .success(try registry.call("mcp__web__fetch", arguments: Array(#"{"url":"https://example.org/"}"#.utf8), taint: &taint)) }
            catch let error as AgentsError { result = .failure(error) }
            catch { Issue.record("not an AgentsError: \(error)") }
        }
        return (result, elapsed, client)
    }

    func expectFailure(_ mode: String, _ code: AgentsErrorCode, mentioning words: String, within limit: Duration = .seconds(8)) throws {
        let (result, elapsed, client) = try call(mode)
        guard case .failure(let error) = result else { Issue.record("\(mode): the call succeeded"); return }
        #expect(error.code == code, "\(mode): \(error.code) \(error.message)")
        #expect(error.message.contains(words), "\(mode): \(error.message)")
        #expect(elapsed < limit, "\(mode) took \(elapsed)")
        // A server that broke the protocol has been stopped: the next call fails at once.
        if code != .mcpServerError {
            #expect(throws: AgentsError(.mcpServerUnavailable, "")) { try client.listTools() }
        }
    }

    @Test func aTenMegabyteLineIsRefusedAtTheBoundWithoutReadingItAll() throws {
        try expectFailure("huge", .mcpTooLarge, mentioning: "longer than 4194304 bytes")
    }

    @Test func aValidMessageWithMoreTextThanTheBoundIsRefused() throws {
        try expectFailure("bigtext", .mcpTooLarge, mentioning: "more than 65536 bytes of text")
    }

    @Test func aLineThatIsNotJSONIsAProtocolViolation() throws {
        try expectFailure("malformed", .mcpProtocolViolation, mentioning: "invalid JSON")
    }

    @Test func aMessageSplitOverTwoLinesIsAProtocolViolation() throws {
        try expectFailure("newline", .mcpProtocolViolation, mentioning: "invalid JSON")
    }

    @Test func anAnswerToARequestNeverSentIsAProtocolViolation() throws {
        try expectFailure("wrongid", .mcpProtocolViolation, mentioning: "never sent")
    }

    @Test func aServerThatNeverAnswersTimesOutAndIsStopped() throws {
        try expectFailure("silent", .mcpTimeout, mentioning: "did not answer in time", within: .seconds(6))
    }

    @Test func notificationsWithoutEndAreCutOffAtTheBound() throws {
        try expectFailure("flood", .mcpTooLarge, mentioning: "more than 1000 messages")
    }

    @Test func aServerThatExitsMidCallIsReportedUnavailable() throws {
        try expectFailure("exit", .mcpServerUnavailable, mentioning: "closed its output")
    }

    @Test func aListWithOneToolTwiceIsRefused() throws {
        let client = try MCPTestServers.hostile("duplicate")
        #expect(throws: AgentsError(.mcpProtocolViolation, "")) { try client.listTools() }
    }

    @Test func aServerOfAnotherProtocolVersionIsRefusedAtTheHandshake() throws {
        let error = agentsError { try MCPTestServers.hostile("badversion") }
        #expect(error?.code == .mcpUnsupportedVersion)
        #expect(error?.message.contains("1999-01-01") == true)
    }

    @Test func aServerSilentFromTheStartTimesOutWithinTheStartBound() throws {
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            #expect(throws: AgentsError(.mcpTimeout, "")) { _ = try MCPTestServers.hostile("silentstart") }
        }
        #expect(elapsed < .seconds(15))
    }

    @Test func aSamplingRequestFromTheServerIsAnsweredMethodNotFound() throws {
        let (result, _, _) = try call("request")
        #expect(try result.get().text == "client said -32601")
    }

    @Test func aCommandThatDoesNotExistIsAClearError() throws {
        let configuration = try MCPServerConfiguration(name: "missing", command: ["/nonexistent/mcp-server"])
        let error = agentsError { try MCPClient(configuration, environment: MCPTestServers.environment, limits: MCPTestServers.shortLimits) }
        #expect(error?.code == .mcpServerUnavailable)
        #expect(error?.message.contains("cannot start the MCP server '/nonexistent/mcp-server'") == true)
    }

    /// A lying server's output (it claims to come from the vault and asks for an open-world call) is
    /// passed on as untrusted: once the task has also read privileged content, no open-world tool
    /// may be called, whatever the text says.
    @Test func aLyingServersOutputIsUntrustedAndClosesTheOpenWorld() throws {
        let client = try MCPTestServers.hostile("lying")
        let (registry, _) = try fixture.registry(for: client)
        var taint = fixture.taint(reading: [fixture.blog])
        let output = try registry.call("mcp__web__fetch", arguments: Array(#"{"url":"https://example.org/"}"#.utf8), taint: &taint)
        #expect(output.provenance == .outside)
        #expect(output.text.contains("SYSTEM (vault)"))
        #expect(taint.readUntrusted && !taint.readPrivileged)
        taint.absorb(.vault([fixture.chart]))
        let error = agentsError { try registry.call("mcp__web__fetch", arguments: Array(#"{"url":"https://example.org/"}"#.utf8), taint: &taint) }
        #expect(error?.code == .toolRefused)
        #expect(error?.message.contains("privileged content and untrusted content") == true)
    }

    /// The stateless revision's rules hold too: every result says resultType "complete", a server may
    /// send no request, and an input_required result (a request for sampling or elicitation this
    /// client does not give) is an error, not a hang.
    @Test func aStatelessServerIsHeldToTheRevisionsRules() throws {
        let noResultType = try MCPTestServers.hostile("modern-noresulttype")
        #expect(noResultType.revision == .stateless)
        #expect(agentsError { try noResultType.listTools() }?.message.contains("resultType") == true)
        let request = try MCPTestServers.hostile("modern-request")
        let refused = agentsError { try request.listTools() }
        #expect(refused?.code == .mcpProtocolViolation && refused?.message.contains("a 2026-07-28 server may not send") == true)
        let (result, _, _) = try call("modern-inputrequired")
        guard case .failure(let error) = result else { Issue.record("an input_required result passed"); return }
        #expect(error.code == .mcpServerError && error.message.contains("asked for input"))
    }
}
