import Appliance
import CryptoVault
import Foundation
import PeerChannel
import Sync
import Testing
import TestSupport
import Writing
@testable import Console
#if canImport(Glibc)
import Glibc
#endif

/// Sync on the devices page, against a real paired device: a second vault answering the exchange on
/// a real channel on loopback (the daemon's `SyncChannelService`). The console syncs now, shows each
/// device's state, pauses and resumes, and a page open on a document hears the other device's edit.
@Suite struct ConsoleSyncTests {
    /// The console's vault paired with a desk vault (each the other's own device) that serves sync.
    final class Pair {
        let console: ConsoleFixture
        let desk: TestVault
        let deskKeys: DeviceKeys
        let server: ChannelServer
        let project: WritingProject
        let document: NodeID

        init() throws {
            console = try ConsoleFixture()
            desk = try TestVault(modules: [WritingSchema.module, SyncSchema.module, SyncExchangeSchema.module])
            deskKeys = try desk.unlocked.deviceKeys(named: "desk")
            let laptopKeys = try console.unlocked.deviceKeys(named: "laptop")
            try desk.unlocked.storePairing(FamilyPairing(peer: laptopKeys.profile, role: .host, pairedAt: 1))
            try console.unlocked.storePairing(FamilyPairing(peer: deskKeys.profile, role: .join, pairedAt: 1))
            try desk.unlocked.setTrust(.mine, of: laptopKeys.profile.deviceID, atPairing: true)
            try console.unlocked.setTrust(.mine, of: deskKeys.profile.deviceID, atPairing: true)
            let deskVault = desk.unlocked
            server = try ChannelServer(address: SocketAddress(parsing: "127.0.0.1:0"), localKeys: deskKeys,
                                       pinnedPeers: { try deskVault.vault.familyPairings() },
                                       services: [SyncChannelService(vault: desk.unlocked, coordinator: nil)])
            server.start()
            let project = try desk.unlocked.createWritingProject(named: "Harbour", register: .fiction, kind: .document)
            self.project = project
            document = try desk.unlocked.transaction { tx in
                let store = WritingStore(tx)
                let node = try store.addNode(.scene, titled: "Arrival", in: project.id)
                try store.replaceDocumentContent(of: node.id, in: project.id, with: DocumentContent(blocks: [
                    Block(id: try BlockID.random(), kind: .paragraph, text: "The ferry came in at six.")]))
                return node.id
            }
        }

        deinit { server.stop() }

        var path: String { "/api/devices/\(deskKeys.profile.fingerprint)/sync" }
        var address: String { "\(server.address.host):\(server.address.port)" }

        func syncNow() throws -> [String: Any] { try #require(try console.json("POST", path, ["address": address]) as? [String: Any]) }

        func deskRow() throws -> [String: Any] {
            let devices = try #require(try console.json("GET", "/api/devices") as? [String: Any])
            return try #require((devices["paired"] as? [[String: Any]])?.first)
        }

        func editOnDesk(_ text: String) throws {
            try desk.unlocked.transaction { tx in
                let store = WritingStore(tx)
                var content = try store.documentContent(of: document, in: project.id)
                content.blocks[0].text = text
                try store.replaceDocumentContent(of: document, in: project.id, with: content)
            }
        }

        /// Makes the desk's pending edits a sync record now (as its next exchange would), so a
        /// later desk edit is a record after it in Lamport order.
        func commitOnDesk() throws {
            let author = SyncAuthor(device: deskKeys.profile.deviceID, key: deskKeys.signingKey)
            try desk.unlocked.transaction { tx in
                _ = try VaultSync(WritingStore(tx), author: author, devices: [author.device: author.key.publicKey])
                    .commitLocalChanges(in: project.id)
            }
        }

        func consoleText() throws -> String? {
            let shown = try #require(try console.json("GET", "/api/projects/\(project.id.hex)/documents/\(document.hex)") as? [String: Any])
            return (shown["blocks"] as? [[String: Any]])?.first?["text"] as? String
        }
    }

    @Test("sync now brings the desk's project into the console, and the devices list shows the exchange")
    func syncNowAndStatus() throws {
        let pair = try Pair()
        let before = try #require(try pair.deskRow()["sync"] as? [String: Any])
        #expect(before["last_sync_at"] is NSNull && before["paused"] as? Bool == false)
        let done = try pair.syncNow()
        #expect((done["received"] as? Int ?? 0) > 0 && done["refused"] as? Int == 0)
        #expect(try pair.consoleText() == "The ferry came in at six.")
        let after = try #require(try pair.deskRow()["sync"] as? [String: Any])
        #expect(after["last_sync_at"] is Int64 || after["last_sync_at"] is Int)
        #expect((after["records_received"] as? Int ?? 0) > 0 && after["last_error"] is NSNull)
    }

    @Test("an edit on the other device reaches a page open on the console as a live event once sync takes it in")
    func liveFromTheOtherDevice() throws {
        let pair = try Pair()
        _ = try pair.syncNow()
        let socket = try LoopbackHTTP.connect(port: pair.console.port)
        defer { close(socket) }
        let request = "GET /api/events HTTP/1.1\r\nHost: \(pair.console.host)\r\nCookie: vault_console=\(pair.console.cookie)\r\n\r\n"
        _ = Array(request.utf8).withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        _ = try ConsoleLiveTests.read(socket, until: "retry: 2000")
        try pair.editOnDesk("The ferry came in at dawn, written on the desk.")
        _ = try pair.syncNow()
        let event = try ConsoleLiveTests.read(socket, until: pair.document.hex)
        #expect(event.contains("event: change") && !event.contains("dawn"))
        #expect(try pair.consoleText() == "The ferry came in at dawn, written on the desk.")
    }

    @Test("a save made over an older text (a synced edit landed meanwhile) is kept as a branch, never written over the synced words")
    func staleSaveBecomesABranch() throws {
        let pair = try Pair()
        _ = try pair.syncNow()
        let path = "/api/projects/\(pair.project.id.hex)/documents/\(pair.document.hex)"
        let read = try #require(try pair.console.json("GET", path) as? [String: Any])
        let base = try #require(read["blocks"] as? [[String: Any]])
        var typed = base
        typed[0]["text"] = "The ferry came in at six, typed in the console."
        let saved = try pair.console.request("PUT", path, json: ["blocks": typed, "base": base])
        #expect(saved.status == 200, "a save over the text it was typed on is written")
        // The desk edits the same block twice, one record each: its last edit is later in Lamport
        // order than the console's save, so it ranks higher (§19.3) whatever the random device ids.
        try pair.editOnDesk("The ferry came in at five, from the desk.")
        try pair.commitOnDesk()
        try pair.editOnDesk("The ferry came in at dawn, from the desk.")
        _ = try pair.syncNow()
        var late = typed
        late[0]["text"] = "The ferry came in at six, typed on in the console."
        let stale = try pair.console.request("PUT", path, json: ["blocks": late, "base": typed])
        #expect(stale.status == 409)
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(stale.body)) as? [String: Any])
        let branch = try #require(answer["branch"] as? String)
        // Both devices changed the block: the document shows the higher-ranked side whole, the desk's
        // later edit (SECURITY.md §19.3), and the console's saved words are a sync-conflict branch.
        #expect(try pair.consoleText() == "The ferry came in at dawn, from the desk.", "the synced words stay in the document")
        let listed = try #require(try pair.console.json("GET", path + "/branches") as? [[String: Any]])
        let conflict = try #require(listed.first { $0["kind"] as? String == BranchKind.syncConflict.rawValue })
        let conflictID = try #require(conflict["id"] as? String)
        let lost = try #require(try pair.console.json("GET", path + "/branches/\(conflictID)") as? [String: Any])
        #expect((lost["blocks"] as? [[String: Any]])?.first?["text"] as? String == "The ferry came in at six, typed in the console.",
                "the console's saved words are kept whole as the conflict's other side")
        let kept = try #require(try pair.console.json("GET", path + "/branches/\(branch)") as? [String: Any])
        #expect(kept["kind"] as? String == "manual" && (kept["blocks"] as? [[String: Any]])?.first?["text"] as? String == "The ferry came in at six, typed on in the console.",
                "the page's words are kept as a branch against the document as it now is")
        #expect(!pair.console.actions.suffix(6).contains("writing.content-write"), "nothing was written over the synced text")
    }

    @Test("paused, sync now is refused and nothing is taken in; resumed, it syncs; each change is recorded")
    func pauseAndResume() throws {
        let pair = try Pair()
        let paused = try #require(try pair.console.json("POST", pair.path + "/pause", [String: Any]()) as? [String: Any])
        #expect(paused["changed"] as? Bool == true)
        #expect((try pair.deskRow()["sync"] as? [String: Any])?["paused"] as? Bool == true)
        let refused = try pair.console.request("POST", pair.path, json: ["address": pair.address])
        #expect(refused.status == 409 && refused.text.contains("stopped"))
        #expect((try pair.console.json("GET", "/api/projects") as? [[String: Any]])?.isEmpty == true, "nothing was taken in while paused")
        _ = try pair.console.json("POST", pair.path + "/resume", [String: Any]())
        #expect((try pair.syncNow()["received"] as? Int ?? 0) > 0)
        #expect(pair.console.actions.contains("sync.pause") && pair.console.actions.contains("sync.resume"))
    }

    @Test("an unreachable device, a bad address and an unknown device are each refused with their reason")
    func refusals() throws {
        let pair = try Pair()
        pair.server.stop()
        let unreachable = try pair.console.request("POST", pair.path, json: ["address": pair.address])
        #expect(unreachable.status == 409 && unreachable.text.contains("could not reach desk"))
        let bad = try pair.console.request("POST", pair.path, json: ["address": "the desk"])
        #expect(bad.status == 400 && bad.text.contains("not an address"))
        let unknown = try pair.console.request("POST", "/api/devices/\(String(repeating: "0", count: 16))/sync/pause", json: [String: Any]())
        #expect(unknown.status == 404)
    }
}
