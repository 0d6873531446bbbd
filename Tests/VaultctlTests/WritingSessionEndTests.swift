import Foundation
import Testing
import TestSupport

/// A privileged project's writing sessions end with the daemon's privileged session and with the
/// daemon (SECURITY.md §15.5), and a one-command session's with the command: after `session end`, a `--purpose`
/// edit and a clean stop, every
/// `writing.edit-session-start` in the audit chain has its `writing.edit-session-end`.
@Suite("vaultctl serve: writing sessions end with the daemon's session and the daemon", .serialized)
struct WritingSessionEndTests {
    typealias Fixture = DaemonCommandTests.Fixture

    static func stamps(_ fixture: Fixture) throws -> (starts: Int, ends: Int) {
        let actions = try fixture.actions()
        return (actions.filter { $0 == "writing.edit-session-start" }.count, actions.filter { $0 == "writing.edit-session-end" }.count)
    }

    @Test("session end stamps the end of the writing session it served; a --purpose edit stamps its own; stopping the daemon ends the one left open")
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
        // A one-command session's edit: its writing session ends with the command's session, stamped then.
        let edited = try vault.run(["doc", "write", id, "Session 1", "--purpose", "add the plan"], unlock: false, stdin: "S: slept badly.\n\nP: review.\n")
        #expect(edited.status == 0, "\(edited.stderr)")
        #expect(try Self.stamps(fixture) == (2, 2), "the --purpose session ended the writing session it served")
        // One left open by a daemon session still running: the stop ends it, before daemon.stop.
        #expect(try fixture.client(["session", "start", "--compartment", "project \(id)", "--purpose", "more notes"]).status == 0)
        #expect(try vault.run(["doc", "write", id, "Session 1"], unlock: false, stdin: "S: slept well.\n").status == 0)
        #expect(try Self.stamps(fixture) == (3, 2))
        let stopped = try fixture.stopDaemon()
        #expect(stopped.status == 0, "\(stopped.stderr)")
        #expect(try Self.stamps(fixture) == (3, 3), "after a clean stop no writing session is left without its end")
        let actions = try fixture.actions()
        let lastEnd = try #require(actions.lastIndex(of: "writing.edit-session-end"))
        #expect(actions[lastEnd...].contains("daemon.stop"), "\(actions.suffix(8))")
    }
}
