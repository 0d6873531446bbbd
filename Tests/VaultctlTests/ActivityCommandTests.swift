import Foundation
import Testing
import TestSupport

/// vaultctl activity: a project's writing sessions (SECURITY.md §15.5). The CLI runs on the real
/// clock, so these check the merging of edits made seconds apart and the explicit end; the gap
/// itself is tested with an injected clock (SceneEditEventTests).
@Suite("vaultctl activity", .serialized)
struct ActivityCommandTests {
    @Test("writes seconds apart are one session with each document's word change; --end closes it")
    func oneSession() throws {
        let vault = try CLIVault()
        try WritingCommandTests.ok(vault, ["project", "create", "Harbour", "--register", "fiction"])
        try WritingCommandTests.ok(vault, ["doc", "add", "Harbour", "Arrival"])
        try WritingCommandTests.ok(vault, ["doc", "write", "Harbour", "Arrival"], stdin: "The boat came in.\n")
        try WritingCommandTests.ok(vault, ["doc", "write", "Harbour", "Arrival"], stdin: "The boat came in late.\n")
        let listing = try WritingCommandTests.ok(vault, ["activity", "Harbour"])
        #expect(listing.hasPrefix("1 writing session(s)\n") && listing.contains("2 edit(s)  +5 words  open") && listing.contains("Arrival"), "\(listing)")
        let ended = try #require(try JSONSerialization.jsonObject(with: Data(try WritingCommandTests.ok(vault, ["activity", "Harbour", "--end", "--json"]).utf8))
                                 as? [[String: Any]])
        #expect(ended.count == 1 && ended[0]["ended_at"] is Int && ended[0]["words"] as? Int == 5, "\(ended)")
        let documents = try #require(ended[0]["documents"] as? [[String: Any]])
        #expect(documents.map { $0["title"] as? String } == ["Arrival"])
    }

    @Test("a privileged project's session is listed only with --purpose, and its end is stamped into the audit log with no word of the note")
    func privilegedSessionIsStamped() throws {
        let vault = try CLIVault()
        let purpose = ["--purpose", "write up the session"]
        try WritingCommandTests.intake(vault, purpose: purpose, text: "Reports insomnia.\n")
        #expect(try vault.run(["activity", "Intake"]).status == 77)
        try WritingCommandTests.ok(vault, ["activity", "Intake", "--end"] + purpose)
        let log = try WritingCommandTests.ok(vault, ["audit", "log", "--json", "--details"] + purpose)
        #expect(log.contains("writing.edit-session-start") && log.contains("writing.edit-session-end"), "\(log)")
        #expect(!log.lowercased().contains("insomnia"))
    }

    @Test("with no daemon, a --purpose write's writing session ends with the command: start and end stamped (documents, words, edits, times), no later visit needed")
    func onePurposeCommandStampsItsEnd() throws {
        let vault = try CLIVault()
        let purpose = ["--purpose", "write up the session"]
        try WritingCommandTests.intake(vault, purpose: purpose, text: "Reports insomnia and early waking.\n")
        let log = try WritingCommandTests.ok(vault, ["audit", "log", "--json", "--details"] + purpose)
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(log.utf8)) as? [[String: Any]])
        let actions = entries.compactMap { $0["action"] as? String }
        #expect(actions.filter { $0 == "writing.edit-session-start" }.count == 1 && actions.filter { $0 == "writing.edit-session-end" }.count == 1, "\(actions)")
        // The end comes in the write's own command, before its privileged session ends (the next command's session starts after it).
        let end = try #require(actions.firstIndex(of: "writing.edit-session-end"))
        #expect(actions[end...].dropFirst().first == "session.end", "\(actions)")
        let details = "\(entries[end])"
        #expect(details.contains("words") && details.contains("documents") && !details.lowercased().contains("insomnia"), "\(details)")
        let listing = try WritingCommandTests.ok(vault, ["activity", "Intake"] + purpose)
        #expect(listing.hasPrefix("1 writing session(s)\n") && !listing.contains("open"), "\(listing)")
    }
}
