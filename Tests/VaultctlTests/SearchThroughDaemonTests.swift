import Foundation
import Testing
import TestSupport

/// `vaultctl search` while `vaultctl serve` runs: it runs in the daemon (SECURITY.md §10.8), so it
/// answers from the index the daemon keeps between searches (§15.4), with the same hits and the same
/// audit entries as a search in a process of its own, and a privileged project's only in a session.
@Suite("vaultctl search through the daemon", .serialized)
struct SearchThroughDaemonTests {
    typealias Fixture = DaemonCommandTests.Fixture

    /// What one request to the daemon recorded: the entries from its `appliance.request` to the next one.
    struct Request {
        let request: String
        let entries: [[String: Any]]

        var actions: [String] { entries.compactMap { $0["action"] as? String } }
        /// Whether it opened any block (the index was built, not answered from the kept one).
        var openedBlocks: Bool {
            entries.contains { $0["action"] as? String == "record.open"
                && ((($0["details"] as? [String: String])?["records"]) ?? "").contains("writing_blocks") }
        }
        var hits: String? { entries.first { $0["action"] as? String == "writing.search" }.flatMap { ($0["details"] as? [String: String])?["hits"] } }
    }

    static func requests(_ entries: [[String: Any]]) -> [Request] {
        var requests: [Request] = []
        for entry in entries {
            if entry["action"] as? String == "appliance.request" {
                requests.append(Request(request: (entry["details"] as? [String: String])?["request"] ?? "", entries: []))
            } else if let last = requests.popLast() {
                requests.append(Request(request: last.request, entries: last.entries + [entry]))
            }
        }
        return requests
    }

    /// The documents a `search --json` lists.
    static func hits(_ result: CLI.Result) throws -> [[String: Any]] {
        let found = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout) \(result.stderr)")
        return try #require(found["documents"] as? [[String: Any]], "\(result.stdout)")
    }

    static func ids(_ hits: [[String: Any]]) -> [String] { hits.compactMap { $0["id"] as? String } }

    @Test("through the daemon: the same hits as a search run alone, recorded as an appliance.request and writing.search; the second search opens no block; a write is seen")
    func searchRunsInTheDaemon() throws {
        let fixture = try Fixture()
        let vault = fixture.cli.vault
        try WritingCommandTests.ok(vault, ["project", "create", "Harbour", "--register", "fiction"])
        for (title, text) in [("Arrival", "The grey boat came in.\n\nGulls over the harbour.\n"), ("Storm", "Rain on the harbour wall.\n"),
                              ("Calm", "Nothing moved.\n")] {
            try WritingCommandTests.ok(vault, ["doc", "add", "Harbour", title])
            try WritingCommandTests.ok(vault, ["doc", "write", "Harbour", title], stdin: text)
        }
        let query = "harb* \"harbour wall\""
        let alone = try vault.run(["search", "Harbour", query, "--json"])
        #expect(alone.status == 0, "\(alone.stderr)")

        _ = try fixture.serve()
        let first = try fixture.client(["search", "Harbour", query, "--json"])
        #expect(first.status == 0 && !first.stderr.contains("assphrase"), "\(first.status) \(first.stderr)")
        #expect(try Self.hits(first).map { NSDictionary(dictionary: $0) } == (try Self.hits(alone)).map { NSDictionary(dictionary: $0) },
                "\(first.stdout) against \(alone.stdout)")
        #expect(Self.ids(try Self.hits(first)).count == 1)
        let second = try fixture.client(["search", "Harbour", query])
        #expect(second.status == 0 && second.stdout.hasPrefix("1 scene found\n") && second.stdout.contains("Storm"), "\(second.stdout) \(second.stderr)")
        let write = try vault.run(["doc", "write", "Harbour", "Calm", "--json"], unlock: false, stdin: "The harbour wall held.\n")
        #expect(write.status == 0, "\(write.stderr)")
        let third = try fixture.client(["search", "Harbour", query, "--json"])
        #expect(Set(Self.ids(try Self.hits(third))).count == 2, "the write is seen: \(third.stdout)")
        _ = try fixture.stopDaemon()

        let searches = Self.requests(try fixture.auditEntries()).filter { $0.request == "command search" }
        try #require(searches.count == 3, "\(searches.map(\.request))")
        #expect(searches.map(\.hits) == ["1", "1", "2"], "\(searches.map(\.actions))")
        #expect(searches.map(\.openedBlocks) == [true, false, true], "built, answered from the kept index, the written document opened again")
        // A search run alone records the same: its blocks opened and writing.search with the hits.
        let standalone = try fixture.auditEntries().filter { $0["action"] as? String == "writing.search" }
        #expect(standalone.count == 4 && (standalone.first?["details"] as? [String: String])?["hits"] == "1", "\(standalone)")
    }

    @Test("a privileged project is searched through the daemon only in a session: refused (77) without one, with --purpose, or in the daemon's session whose index goes when it ends")
    func privilegedSearchNeedsASession() throws {
        let fixture = try Fixture()
        let vault = fixture.cli.vault
        try WritingCommandTests.intake(vault, purpose: ["--purpose", "write up the session"], text: "S: slept badly, insomnia.\n")
        _ = try fixture.serve()
        let refused = try fixture.client(["search", "Intake", "insomnia"])
        #expect(refused.status == 77 && refused.stderr.contains("privileged"), "\(refused.status) \(refused.stderr)")
        let once = try fixture.client(["search", "Intake", "insomnia", "--purpose", "prepare the review", "--json"])
        #expect(once.status == 0, "\(once.stderr)")
        #expect(Self.ids(try Self.hits(once)).count == 1, "\(once.stdout)")
        let afterPurpose = try fixture.client(["search", "Intake", "insomnia"])
        #expect(afterPurpose.status == 77, "the one-command session ended with its search: \(afterPurpose.stderr)")

        let listed = try fixture.client(["project", "list", "--json"])
        let projects = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        let id = try #require(projects.first?["id"] as? String)
        #expect(try fixture.client(["session", "start", "--compartment", "project \(id)", "--purpose", "review"]).status == 0)
        for _ in 0..<2 {
            let found = try fixture.client(["search", id, "insomnia", "--json"])
            #expect(found.status == 0, "\(found.stderr)")
            #expect(Self.ids(try Self.hits(found)).count == 1, "\(found.stdout)")
        }
        #expect(try fixture.client(["session", "end", "--all"]).status == 0)
        let ended = try fixture.client(["search", id, "insomnia"])
        #expect(ended.status == 77 && ended.stderr.contains("privileged"), "\(ended.status) \(ended.stderr)")
        _ = try fixture.stopDaemon()

        let searches = Self.requests(try fixture.auditEntriesWithPrivilegedDetails()).filter { $0.request == "command search" }
        try #require(searches.count == 6, "\(searches.map(\.request))")
        #expect(searches.map { $0.actions.contains("writing.search") } == [false, true, false, true, true, false], "\(searches.map(\.actions))")
        #expect(searches.map(\.openedBlocks) == [false, true, false, true, false, false],
                "the daemon's session keeps its index for the second search; the one-command session's is not reused")
        #expect(searches[1].actions.contains("session.start") && searches[1].actions.contains("session.end"), "\(searches[1].actions)")
    }
}
