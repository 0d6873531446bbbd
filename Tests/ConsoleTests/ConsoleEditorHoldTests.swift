import CryptoVault
import Foundation
import Sync
import Testing
import TestSupport
import Writing
@testable import Console
#if canImport(Glibc)
import Glibc
#endif

/// The editor page's hold on sync changes (issue 17, SECURITY.md §16.5, §19.9): the page says when it
/// shows a document (`POST .../documents/D/editor`, a lease it renews at `POST /api/editors/T`) and
/// when it leaves (`DELETE /api/editors/T`); meanwhile the daemon's coordinator holds what sync
/// brings to the document and the live feed leaves it out, then sends it when the editor closes.
@Suite(.serialized) struct ConsoleEditorHoldTests {
    static func made(_ fixture: ConsoleFixture) throws -> (project: String, document: String, other: String) {
        let project = try #require((try fixture.json("POST", "/api/projects", ["name": "Ward notes", "register": "general"]) as? [String: Any])?["id"] as? String)
        let node = { (title: String) throws -> String in
            try #require((try fixture.json("POST", "/api/projects/\(project)/nodes", ["kind": "scene", "title": title]) as? [String: Any])?["id"] as? String)
        }
        return (project, try node("Bed 4"), try node("Bed 5"))
    }

    static func events(_ fixture: ConsoleFixture) throws -> Int32 {
        let socket = try LoopbackHTTP.connect(port: fixture.port)
        let request = "GET /api/events HTTP/1.1\r\nHost: \(fixture.host)\r\nCookie: vault_console=\(fixture.cookie)\r\n\r\n"
        _ = Array(request.utf8).withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        _ = try ConsoleLiveTests.read(socket, until: "retry: 2000")
        return socket
    }

    static func write(_ fixture: ConsoleFixture, _ project: String, _ document: String, _ text: String) throws {
        _ = try fixture.json("PUT", "/api/projects/\(project)/documents/\(document)", ["blocks": [["kind": "paragraph", "text": text]]])
    }

    @Test("open, renew and close a hold: the coordinator knows the document is open until the page says it left; bad ids are refused")
    func theRoutesOpenRenewAndCloseAHold() throws {
        let fixture = try ConsoleFixture()
        let (project, document, _) = try Self.made(fixture)
        let opened = try #require(try fixture.json("POST", "/api/projects/\(project)/documents/\(document)/editor", [String: Any]()) as? [String: Any])
        let hold = try #require(opened["hold"] as? Int, "\(opened)")
        #expect(opened["lease_seconds"] as? Double == EditorHoldRoutes.leaseSeconds)
        let id = try NodeID(hex: document)
        #expect(SyncCoordinator.shared.openDocuments.contains(id))
        #expect(try jsonObject(of: try fixture.request("POST", "/api/editors/\(hold)", json: [:]))["held"] as? Bool == true)
        let closed = try fixture.request("DELETE", "/api/editors/\(hold)")
        #expect(closed.status == 200)
        #expect(!SyncCoordinator.shared.openDocuments.contains(id))
        // Closed, it is not renewed (the page would open another), and closing again does nothing.
        #expect(try jsonObject(of: try fixture.request("POST", "/api/editors/\(hold)", json: [:]))["held"] as? Bool == false)
        #expect(try fixture.request("DELETE", "/api/editors/\(hold)").status == 200)
        // No such document, project or hold; a folder is not a document; a GET is not the route.
        #expect(try fixture.request("POST", "/api/projects/\(project)/documents/\(String(repeating: "0", count: 32))/editor", json: [:]).status == 404)
        #expect(try fixture.request("POST", "/api/projects/\(String(repeating: "0", count: 32))/documents/\(document)/editor", json: [:]).status == 404)
        #expect(try fixture.request("POST", "/api/editors/not-a-hold", json: [:]).status == 404)
        let folder = try #require((try fixture.json("POST", "/api/projects/\(project)/nodes", ["kind": "chapter", "title": "Ward"]) as? [String: Any])?["id"] as? String)
        #expect(try fixture.request("POST", "/api/projects/\(project)/documents/\(folder)/editor", json: [:]).status == 404)
        #expect(try fixture.request("GET", "/api/projects/\(project)/documents/\(document)/editor").status == 405)
        // Without the CSRF token, refused like any write.
        #expect(try fixture.request("POST", "/api/projects/\(project)/documents/\(document)/editor", json: [:], overrides: ["X-CSRF-Token": "wrong"]).status == 403)
    }

    @Test("sync's change to a document open in an editor is left out of the live feed until the editor closes; the page's own saves and other documents' changes go at once")
    func theFeedHoldsSyncChangesOfAnOpenDocument() throws {
        let fixture = try ConsoleFixture()
        let (project, document, other) = try Self.made(fixture)
        let socket = try Self.events(fixture)
        defer { close(socket) }
        let hold = try #require((try fixture.json("POST", "/api/projects/\(project)/documents/\(document)/editor", [String: Any]()) as? [String: Any])?["hold"] as? Int)

        // The page's own save of its open document is announced (a look later than other changes).
        try Self.write(fixture, project, document, "Obs stable.")
        _ = try ConsoleLiveTests.read(socket, until: document)

        // Sync writes the open document and reports it to the coordinator, which holds it.
        try Self.write(fixture, project, document, "Obs stable; synced from the desk.")
        SyncCoordinator.shared.changed(try ProjectID(hex: project), documents: [try NodeID(hex: document)])
        #expect(SyncCoordinator.shared.heldDocuments.contains(try NodeID(hex: document)))
        Thread.sleep(forTimeInterval: 1.5)
        try Self.write(fixture, project, other, "Another bed.")
        let meanwhile = try ConsoleLiveTests.read(socket, until: other)
        #expect(!meanwhile.contains(document), "the open document's synced change reached the page: \(meanwhile)")

        // The editor closes: the held change is announced.
        #expect(try fixture.request("DELETE", "/api/editors/\(hold)").status == 200)
        let released = try ConsoleLiveTests.read(socket, until: document)
        #expect(released.contains("event: change") && !released.contains("synced from the desk"))
        #expect(!SyncCoordinator.shared.heldDocuments.contains(try NodeID(hex: document)))
    }
}
