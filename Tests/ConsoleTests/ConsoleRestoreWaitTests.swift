import CryptoVault
import Foundation
import Sync
import Testing
import TestSupport
import Writing
@testable import Console

/// A project a restore or a recover made wait (SECURITY.md §19.10) is view-only until this vault has
/// pulled it from every device that may hold this device's later records of it. `vaultctl` refuses a
/// change to it naming the devices still awaited and what to do (`RestoredWaits.refusal`); the
/// console's answer named none (restore14's "left open"): the generic view-only words, and, for an
/// editor's save, "its owner made you a viewer", which is not why. Now the console's 403 names each
/// device still awaited as the CLI does (its name and fingerprint, whose it is), and the way out.
@Suite struct ConsoleRestoreWaitTests {
    /// A project with one document, made to wait as a restore makes it for `tablet`, an own device paired here.
    static func waitingProject(_ fixture: ConsoleFixture) throws -> (project: String, document: String, tablet: DeviceProfile) {
        let id = try #require((try fixture.json("POST", "/api/projects", ["name": "Memo", "register": "general"]) as? [String: Any])?["id"] as? String)
        let document = try #require((try fixture.json("POST", "/api/projects/\(id)/nodes", ["kind": "scene", "title": "Draft"]) as? [String: Any])?["id"] as? String)
        _ = try fixture.json("PUT", "/api/projects/\(id)/documents/\(document)", ["blocks": [["kind": "paragraph", "text": "before the backup"]]])
        let tablet = try TestVault().unlocked.deviceKeys(nameIfNew: "tablet").profile
        try fixture.unlocked.storePairing(FamilyPairing(peer: tablet, role: .host, pairedAt: 100))
        _ = try fixture.unlocked.setTrust(.mine, of: tablet.deviceID, atPairing: true)
        // What restore-backup and recover do in their transaction (RestoredWaits.mark).
        _ = try fixture.unlocked.transaction { tx in try RestoredOwnRecords.markAwaiting(in: tx, own: [tablet.deviceID]) }
        return (id, document, tablet)
    }

    static func message(_ response: RawResponse) throws -> String {
        try #require((try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])?["message"] as? String)
    }

    @Test("a save into a project waiting since its restore is refused (403, viewOnly) naming the device it waits for and the way out, like the CLI")
    func aSaveIntoAWaitingProjectNamesTheAwaitedDevice() throws {
        let fixture = try ConsoleFixture()
        let (id, document, tablet) = try Self.waitingProject(fixture)
        let path = "/api/projects/\(id)/documents/\(document)"
        let refused = try fixture.request("PUT", path, json: ["blocks": [["kind": "paragraph", "text": "after the restore"]]])
        #expect(refused.status == 403 && refused.errorCode == "viewOnly", "\(refused.status)")
        let said = try Self.message(refused)
        #expect(said.contains("restore") && said.contains("still to sync with") && said.contains("tablet (\(tablet.fingerprint))")
                && said.contains("your own") && said.contains("repair --write-anyway"), "\(said)")
        // Adding a document is refused the same way.
        let added = try fixture.request("POST", "/api/projects/\(id)/nodes", json: ["kind": "scene", "title": "More"])
        let addedSaid = try Self.message(added)
        #expect(added.status == 403 && added.errorCode == "viewOnly" && addedSaid.contains(tablet.fingerprint), "\(addedSaid)")
        let read = try #require(try fixture.json("GET", path) as? [String: Any])
        #expect((read["blocks"] as? [[String: Any]])?.map { $0["text"] as? String } == ["before the backup"], "nothing was written")
    }

    @Test("an editor's save into a project waiting since its restore keeps the words typed and says why it was refused: the devices awaited, not a viewer's role")
    func anEditorsSaveIntoAWaitingProjectSaysWhyAndKeepsTheWords() throws {
        let fixture = try ConsoleFixture()
        let (id, document, tablet) = try Self.waitingProject(fixture)
        let path = "/api/projects/\(id)/documents/\(document)"
        let loaded = try #require((try fixture.json("GET", path) as? [String: Any])?["blocks"] as? [[String: Any]])
        let refused = try fixture.request("PUT", path, json: ["blocks": loaded + [["kind": "paragraph", "text": "typed"]], "base": loaded])
        #expect(refused.status == 403 && refused.errorCode == "viewOnly", "\(refused.status)")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(refused.body)) as? [String: Any])
        let said = try #require(answer["message"] as? String)
        #expect(said.contains(tablet.fingerprint) && said.contains("kept") && !said.contains("made you a viewer"), "\(said)")
        #expect(answer["kept"] != nil, "\(answer)")
    }
}
