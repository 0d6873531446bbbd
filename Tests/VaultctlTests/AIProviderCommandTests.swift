import Foundation
import Testing
import TestSupport

/// `vaultctl ai providers add --kind custom --header NAME` and `ai policy`: a header's value comes from
/// standard input (never argv), is sealed in the vault and shown nowhere; a project's policy is shown
/// and changed, each change an `ai.policy-set` entry.
@Suite("vaultctl ai: custom endpoints with sealed headers, and the policy", .serialized)
struct AIProviderCommandTests {
    static let secret = "sk-live-9d41-CLI-GATEWAY-KEY"

    static func gateway() throws -> ReplayServer {
        try ReplayServer { request in
            guard request.head.contains("\r\nAuthorization: Bearer \(secret)\r\n") else {
                let body = #"{"error":{"message":"Invalid API key","type":"invalid_request_error"}}"#
                return [.send(Array("HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8))]
            }
            return Wire.chunkedEvents([#"{"choices":[{"index":0,"delta":{"content":"The lamps came on along the quay."},"finish_reason":"stop"}]}"#, "[DONE]"])
        }
    }

    static func harbour(_ vault: CLIVault) throws {
        _ = try AICommandTests.ok(vault, ["project", "create", "Harbour", "--register", "fiction"])
        _ = try AICommandTests.ok(vault, ["doc", "add", "Harbour", "Arrival"])
        _ = try AICommandTests.ok(vault, ["doc", "write", "Harbour", "Arrival"], stdin: "The ferry left at six.\n")
    }

    @Test("a custom endpoint's key: read from stdin, sent, listed by name only, in no clear file, audit entry, output or error")
    func customEndpointKeyIsSealed() throws {
        let vault = try CLIVault()
        let server = try Self.gateway()
        defer { server.stop() }
        try Self.harbour(vault)
        let added = try vault.run(["ai", "providers", "add", "gateway", "--url", server.url + "/v2", "--model", "gpt-oss", "--kind", "custom",
                                   "--header", "Authorization"], stdin: "Bearer \(Self.secret)\n")
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("sending Authorization (sealed in the vault)"), "\(added.stdout)")
        let list = try AICommandTests.ok(vault, ["ai", "providers", "list"], unlock: false)
        #expect(list.contains("gateway\tcustom\tmodel:gateway/gpt-oss") && list.contains("headers: Authorization"), "\(list)")
        let listed = try AICommandTests.ok(vault, ["ai", "providers", "list", "--json"], unlock: false)
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [[String: Any]])
        #expect(entries.first?["headers"] as? [String] == ["Authorization"], "\(listed)")
        let run = try vault.run(["ai", "run", "coauthor.draft", "--project", "Harbour", "--doc", "Arrival"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(server.requests.first?.head.hasPrefix("POST /v2/chat/completions HTTP/1.1") == true)
        let audit = try AICommandTests.ok(vault, ["audit", "log", "--json"])
        #expect(audit.contains("ai.provider-add"))
        var everything = added.stdout + added.stderr + list + listed + run.stdout + run.stderr + audit
        everything += try AICommandTests.ok(vault, ["ai", "log"]) + (try AICommandTests.ok(vault, ["compartment", "list"]))
        #expect(!everything.contains(Self.secret))
        for (path, bytes) in try Self.files(vault.directory) { #expect(bytes.range(of: Data(Self.secret.utf8)) == nil, "the key is in clear in \(path)") }
    }

    @Test("a wrong key: the gateway's 401 is a clear error (exit 69) that repeats neither the key nor the server's words")
    func wrongKeyIsAClearError() throws {
        let vault = try CLIVault()
        let server = try Self.gateway()
        defer { server.stop() }
        try Self.harbour(vault)
        #expect(try vault.run(["ai", "providers", "add", "gateway", "--url", server.url, "--model", "m", "--kind", "custom",
                               "--header", "Authorization"], stdin: "Bearer sk-wrong\n").status == 0)
        let run = try vault.run(["ai", "run", "coauthor.draft", "--project", "Harbour", "--doc", "Arrival"])
        #expect(run.status == 69, "\(run.status) \(run.stderr)")
        #expect(run.stderr.contains("refused the request's credentials: 401"), "\(run.stderr)")
        #expect(!run.stderr.contains("sk-wrong") && !run.stderr.contains("Invalid API key"))
    }

    @Test("no value for a header on stdin: refused (64) and nothing added; the value is never an argument")
    func missingHeaderValueIsRefused() throws {
        let vault = try CLIVault()
        let missing = try vault.run(["ai", "providers", "add", "gateway", "--url", "http://127.0.0.1:9", "--model", "m", "--kind", "custom",
                                     "--header", "Authorization"], stdin: "")
        #expect(missing.status == 64 && missing.stderr.contains("no value for header Authorization"), "\(missing.status) \(missing.stderr)")
        #expect(try AICommandTests.ok(vault, ["ai", "providers", "list"], unlock: false).contains("No providers"))
        let inline = try vault.run(["ai", "providers", "add", "gateway", "--url", "http://127.0.0.1:9", "--model", "m", "--header", "Authorization=Bearer x"])
        #expect(inline.status == 64, "a value in argv is not a header name: \(inline.stderr)")
    }

    @Test("ai policy shows the register's defaults; ai policy set changes lanes and flags, each an ai.policy-set entry")
    func policyShowAndSet() throws {
        let vault = try CLIVault()
        let server = try modelServer(answering: "x")
        defer { server.stop() }
        try Self.harbour(vault)
        _ = try AICommandTests.ok(vault, ["ai", "providers", "add", "local", "--url", server.url, "--model", "smollm2", "--local"])
        _ = try AICommandTests.ok(vault, ["ai", "providers", "add", "lan-box", "--url", server.url, "--model", "big"])
        let shown = try AICommandTests.ok(vault, ["ai", "policy", "--project", "Harbour"])
        #expect(shown.contains("Any provider, findings redacted (the fiction register's defaults)"), "\(shown)")
        #expect(shown.contains("coauthor.draft\tany provider"))
        let set = try AICommandTests.ok(vault, ["ai", "policy", "set", "coauthor.draft", "--providers", "lan-box,local", "--project", "Harbour"])
        #expect(set.contains("coauthor.draft\tlan-box, local"), "\(set)")
        #expect(try AICommandTests.ok(vault, ["ai", "lanes", "--project", "Harbour"]).contains("coauthor.draft\tmodel:lan-box/big"))
        _ = try AICommandTests.ok(vault, ["ai", "policy", "set", "--local-only", "yes", "--on-finding", "refuse", "--project", "Harbour"])
        #expect(try AICommandTests.ok(vault, ["ai", "lanes", "--project", "Harbour"]).contains("coauthor.draft\tmodel:local/smollm2"))
        let json = try JSONSerialization.jsonObject(with: Data(try AICommandTests.ok(vault, ["ai", "policy", "--project", "Harbour", "--json"]).utf8))
        let object = try #require(json as? [String: Any])
        #expect(object["local_only"] as? Bool == true && object["on_finding"] as? String == "refuse" && object["customized"] as? Bool == true)
        let lanes = try #require(object["lanes"] as? [[String: Any]])
        #expect(lanes.first { $0["lane"] as? String == "coauthor.draft" }?["providers"] as? [String] == ["lan-box", "local"])
        _ = try AICommandTests.ok(vault, ["ai", "policy", "set", "coauthor.draft", "--any-provider", "--project", "Harbour"])
        #expect(try AICommandTests.ok(vault, ["ai", "policy", "--project", "Harbour"]).contains("coauthor.draft\tany provider"))
        let audit = try AICommandTests.ok(vault, ["audit", "log"])
        #expect(audit.components(separatedBy: "ai.policy-set").count - 1 == 3, "\(audit)")
        let all = try AICommandTests.ok(vault, ["ai", "policy"])
        #expect(all.contains("Harbour\tLocal providers only, findings refuse the call"), "\(all)")
    }

    @Test("ai policy set refuses what it cannot do, saying why, and records nothing")
    func policySetRefusals() throws {
        let vault = try CLIVault()
        try Self.harbour(vault)
        func status(_ arguments: [String]) throws -> (Int32, String) {
            let result = try vault.run(["ai", "policy", "set"] + arguments + ["--project", "Harbour"])
            return (result.status, result.stderr)
        }
        let unknown = try status(["coauthor.draft", "--providers", "nobody"])
        #expect(unknown.0 == 66 && unknown.1.contains("no provider 'nobody'"), "\(unknown)")
        #expect(try status([]).1.contains("nothing to change"))
        #expect(try status(["coauthor.draft"]).1.contains("give --providers LIST or --any-provider"))
        #expect(try status(["--providers", "a"]).1.contains("need a LANE"))
        #expect(try status(["coauthor.dream", "--any-provider"]).0 == 64)
        #expect(try status(["--local-only", "maybe"]).1.contains("--local-only is yes or no"))
        #expect(!(try AICommandTests.ok(vault, ["audit", "log"])).contains("ai.policy-set"))
    }

    static func files(_ directory: String) throws -> [(String, Data)] {
        let enumerator = FileManager.default.enumerator(atPath: directory)
        var files: [(String, Data)] = []
        while let path = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: directory + "/" + path, isDirectory: &isDirectory), !isDirectory.boolValue {
                files.append((path, try Data(contentsOf: URL(fileURLWithPath: directory + "/" + path))))
            }
        }
        return files
    }
}
