import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

/// A model server of our own on loopback that answers every request with `answer`, streamed.
func modelServer(answering answer: String) throws -> ReplayServer {
    let escaped = String(decoding: try JSONSerialization.data(withJSONObject: [answer]), as: UTF8.self).dropFirst().dropLast()
    return try ReplayServer { _ in Wire.chunkedEvents([#"{"choices":[{"index":0,"delta":{"content":\#(escaped)},"finish_reason":"stop"}],"usage":{"prompt_tokens":40,"completion_tokens":9}}"#, "[DONE]"]) }
}

extension ReplayServer {
    /// Every request body received, as text: the server's own record of what reached it.
    var received: String { requests.map(\.bodyText).joined(separator: "\n") }
}

/// `vaultctl ai providers|lanes|allow-local|run|log`: a run prints the egress decision, makes a
/// branch of kind ai-suggestion and leaves the document as it was; a privileged project sends
/// nothing until a local provider is allowed for the lane, and then runs through the daemon's session.
@Suite("vaultctl ai: providers, lanes, run, log", .serialized)
struct AICommandTests {
    static func ok(_ vault: CLIVault, _ arguments: [String], unlock: Bool = true, stdin: String? = nil,
                   sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let result = try vault.run(arguments, unlock: unlock, stdin: stdin)
        #expect(result.status == 0, "\(arguments.joined(separator: " ")): \(result.status) \(result.stderr)", sourceLocation: sourceLocation)
        return result.stdout
    }

    @Test("a fiction document: the run prints the decision and the branch it made; the document is untouched; the log lists the call")
    func runOnAnOrdinaryProject() throws {
        let vault = try CLIVault()
        let server = try modelServer(answering: "Sure! Here is the continuation:\n\nThe lamps came on along the quay.")
        defer { server.stop() }
        _ = try Self.ok(vault, ["project", "create", "Harbour", "--register", "fiction"])
        _ = try Self.ok(vault, ["doc", "add", "Harbour", "Arrival"])
        _ = try Self.ok(vault, ["doc", "write", "Harbour", "Arrival"], stdin: "The ferry left at six.\n")
        #expect(try Self.ok(vault, ["ai", "providers", "add", "local", "--url", server.url, "--model", "smollm2", "--local"]).contains("model:local/smollm2"))
        #expect(try Self.ok(vault, ["ai", "providers", "list"], unlock: false).contains("local\topenai\tmodel:local/smollm2"))
        #expect(try Self.ok(vault, ["ai", "providers", "test", "local"], unlock: false).contains("answers"))
        #expect(try Self.ok(vault, ["ai", "lanes", "--project", "Harbour"]).contains("coauthor.draft\tmodel:local/smollm2"))
        let run = try Self.ok(vault, ["ai", "run", "coauthor.draft", "--project", "Harbour", "--doc", "Arrival"])
        #expect(run.contains("Egress: allow to model:local/smollm2"), "\(run)")
        #expect(run.contains("Suggestion: branch 1 of Arrival"), "\(run)")
        #expect(server.received.contains("The ferry left at six."))
        #expect(try Self.ok(vault, ["doc", "show", "Harbour", "Arrival"]) == "The ferry left at six.\n")
        let branch = try Self.ok(vault, ["branch", "show", "Harbour", "Arrival", "1"])
        #expect(branch == "The ferry left at six.\n\nThe lamps came on along the quay.\n")
        let log = try Self.ok(vault, ["ai", "log"])
        #expect(log.contains("coauthor.draft\tmodel:local/smollm2\tsuggested"))
        #expect(!log.contains("ferry") && !log.contains("lamps"))
        #expect(try vault.run(["ai", "run", "coauthor.dream", "--project", "Harbour", "--doc", "Arrival"]).status == 64)
    }

    @Test("a healthcare note through the daemon: refused (exit 4, nothing sent) until a local provider is allowed for the lane; then a branch")
    func privilegedProjectThroughTheDaemon() throws {
        let fixture = try DaemonCommandTests.Fixture()
        let vault = fixture.cli.vault
        let server = try modelServer(answering: "Slept four hours; asks to move the dose to the morning.")
        defer { server.stop() }
        try WritingCommandTests.intake(vault, purpose: ["--purpose", "write up the session"], text: "S: slept badly, four hours.\n\nP: review the dose.\n")
        _ = try Self.ok(vault, ["ai", "providers", "add", "local", "--url", server.url, "--model", "smollm2", "--local"])
        _ = try fixture.serve()
        let projects = try #require(try JSONSerialization.jsonObject(with: Data(try fixture.client(["project", "list", "--json"]).stdout.utf8)) as? [[String: Any]])
        let id = try #require(projects.first?["id"] as? String)
        #expect(try fixture.client(["session", "start", "--compartment", "project \(id)", "--purpose", "summarise the session"]).status == 0)
        let refused = try fixture.client(["ai", "run", "coauthor.summarize", "--project", id, "--doc", "Session 1"])
        #expect(refused.status == 4, "\(refused.stderr)")
        #expect(refused.stderr.contains("privileged"))
        #expect(server.requests.isEmpty)
        #expect(try fixture.client(["ai", "allow-local", "local", "--project", id, "--lane", "coauthor.summarize"]).status == 0)
        let run = try fixture.client(["ai", "run", "coauthor.summarize", "--project", id, "--doc", "Session 1", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let result = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(result["decision"] as? String == "allow")
        #expect(result["branch_number"] as? Int == 1)
        #expect(server.received.contains("slept badly"))
        let audit = try fixture.client(["audit", "log"]).stdout
        #expect(audit.contains("ai.allow-local") && audit.contains("ai.call"))
    }
}
