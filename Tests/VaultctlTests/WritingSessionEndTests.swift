import Foundation
import Testing
import TestSupport

/// A privileged project's writing sessions end with the daemon's privileged session and with the
/// daemon (SECURITY.md §15.5): after `session end` and after a clean stop, every
/// `writing.edit-session-start` in the audit chain has its `writing.edit-session-end`.
@Suite("vaultctl serve: writing sessions end with the daemon's session and the daemon", .serialized)
struct WritingSessionEndTests {
    typealias Fixture = DaemonCommandTests.Fixture

    static func stamps(_ fixture: Fixture) throws -> (starts: Int, ends: Int) {
        let actions = try fixture.actions()
        return (actions.filter { $0 == "writing.edit-session-start" }.count, actions.filter { $0 == "writing.edit-session-end" }.count)
    }

    @Test("session end stamps the end of the writing session it served; stopping the daemon ends the one a --purpose edit left open")
    func endsAreStamped() throws {
        let fixture = try Fixture()
        let vault = fixture.cli.vault
        _ = try fixture.serve()
        #expect(try fixture.client(["project", "create", "Intake", "--register", "healthcare"]).status == 0)
        let listed = try JSONSerialization.jsonObject(with: Data(try fixture.client(["project", "list", "--json"]).stdout.utf8)) as? [[String: Any]]
        let id = try #require(listed?.first?["id"] as? String)
        let started = try fixture.client(["session", "start", "--compartment", "project \(id)", "--purpose", "write up the session", "--json"])
        #expect(started.status == 0, "\(started.stderr)")
        #expect(try vault.run(["doc", "add", id, "Session 1"], unlock: false).status == 0)
        #expect(try vault.run(["doc", "write", id, "Session 1"], unlock: false, stdin: "S: slept badly.\n").status == 0)
        #expect(try Self.stamps(fixture) == (1, 0), "the writing session started and is open")
        #expect(try fixture.client(["session", "end", "--all"]).status == 0)
        #expect(try Self.stamps(fixture) == (1, 1), "ending the daemon's session ended the writing session it served")
        // A one-command session's edit starts a writing session that no daemon session serves: the stop ends it.
        let edited = try vault.run(["doc", "write", id, "Session 1", "--purpose", "add the plan"], unlock: false, stdin: "S: slept badly.\n\nP: review.\n")
        #expect(edited.status == 0, "\(edited.stderr)")
        #expect(try Self.stamps(fixture) == (2, 1))
        let stopped = try fixture.stopDaemon()
        #expect(stopped.status == 0, "\(stopped.stderr)")
        #expect(try Self.stamps(fixture) == (2, 2), "after a clean stop no writing session is left without its end")
        let actions = try fixture.actions()
        let lastEnd = try #require(actions.lastIndex(of: "writing.edit-session-end"))
        #expect(actions[lastEnd...].contains("daemon.stop") && actions[..<lastEnd].last(where: { $0.hasPrefix("session.") }) == "session.start",
                "the stop opened a session for the stamp, and stopped after it: \(actions.suffix(8))")
    }
}
