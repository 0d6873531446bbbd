import CryptoVault
import Foundation
import Testing
import TestSupport
@testable import Console

/// The console of a daemon in in-memory mode (SECURITY.md §19.10) reads, as the command line does:
/// its GET routes and a verification run; a change, a privileged session and the audit export are
/// refused with 409 `inMemoryMode` and the reason, and the page is told the mode by /api/session.
@Suite struct ConsoleInMemoryTests {
    @Test func aConsoleOnTheInMemoryCopyReadsAndRefusesEveryChangeWithTheReason() throws {
        let fixture = try ConsoleFixture()
        let project = try #require(try fixture.json("POST", "/api/projects", ["name": "The harbour", "register": "fiction"]) as? [String: Any])
        let id = try #require(project["id"] as? String)
        // The vault's folder marked as the copy, as `InMemoryStore.makeCopy` marks the copy it makes.
        try InMemoryCopyMarker.mark(fixture.root + "/vault", reason: "the writing store cannot be opened: the table writing_blocks is missing")

        let session = try #require(try fixture.json("GET", "/api/session") as? [String: Any])
        #expect((session["in_memory"] as? String)?.contains("writing_blocks is missing") == true, "\(session)")
        #expect(try fixture.request("GET", "/api/projects").status == 200)
        #expect(try fixture.request("GET", "/api/projects/\(id)").status == 200)
        #expect(try fixture.request("POST", "/api/audit/verify").status == 200)
        let before = fixture.actions
        let changes: [(String, String, Any?)] = [
            ("POST", "/api/projects", ["name": "Scratch", "register": "fiction"]),
            ("POST", "/api/projects/\(id)/nodes", ["kind": "scene", "title": "Arrival"]),
            ("POST", "/api/sessions", ["project": id, "purpose": "read it"]),
            ("GET", "/api/audit/export", nil),
            ("DELETE", "/api/devices/00112233445566778899aabbccddeeff", nil),
        ]
        for (method, path, body) in changes {
            let refused = try fixture.request(method, path, json: body)
            #expect(refused.status == 409 && refused.errorCode == "inMemoryMode", "\(method) \(path): \(refused.status) \(refused.text)")
            #expect(refused.text.contains("refused in in-memory mode (the writing store cannot be opened: the table writing_blocks is missing)"),
                    "\(refused.text)")
        }
        #expect(fixture.actions == before, "a refused request recorded something: \(fixture.actions.dropFirst(before.count))")
    }
}
