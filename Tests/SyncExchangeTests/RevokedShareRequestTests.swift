import CryptoVault
import PeerChannel
@testable import Sync
import Testing
import TestSupport
import Writing

/// A share revoked on the owner's desk, met by the colleague's next exchange (SECURITY.md §19.9,
/// "Who syncs what"; reviewer s17, F17-7): the desk's log records the colleague's request for the
/// project once (device, project, `share` `revoked`), and the colleague's run names the project,
/// as not synced when its words written since will not reach the desk (`sync now` exits 75), with
/// a note otherwise. Before, the desk's log had nothing of that request, and the colleague's run
/// said "Synced 0 project(s)" with exit 0 while its words were never delivered.
@Suite(.serialized) struct RevokedShareRequestTests {
    typealias F = SyncExchangeFixture

    /// The desk's project "Case" with one document, shared with the colleague as `role`, which
    /// pulled it; the desk then revoked the share.
    static func revoked(_ role: ShareRole) throws -> (f: F, colleague: TestVault, keys: DeviceKeys, project: WritingProject, document: NodeID) {
        let f = try F()
        let (colleague, keys) = try SharedProjectRosterTests.colleague(pairedWith: f)
        let project = try F.project(f.desk, "Case")
        let document = try F.document(f.desk, in: project, "Memo", ["Owner first words.", "Notes:"])
        try F.share(project, of: f.desk, with: colleague, role: role)
        #expect(try SharedProjectRosterTests.sync(colleague, keys, with: f).received == 1)
        try SyncControl.revoked(project.compartment, from: keys.profile.deviceID, in: f.desk.unlocked)
        return (f, colleague, keys, project, document)
    }

    /// The desk's `sync.exchange-refused` entries, each as its details by name.
    static func refusals(_ f: F) -> [[String: String]] {
        f.desk.recording.events.withLock { events in
            events.filter { $0.action == .syncExchangeRefused }.map { Dictionary($0.details.map { ($0.name, $0.value) }) { a, _ in a } }
        }
    }

    @Test func anEditorsWordsWrittenAfterTheRevokeAreNamedAsNotSyncedAndTheDeskRecordsItsRequestOnce() throws {
        let (f, colleague, keys, project, document) = try Self.revoked(.editor)
        let colleagues = try colleague.unlocked.transaction { tx in try WritingStore(tx).project(project.id) }
        try F.edit(colleague, colleagues, document, block: 1, to: "Colleague adds.")

        let report = try SharedProjectRosterTests.sync(colleague, keys, with: f)
        let entry = try #require(report.projects.first { $0.project == project.id }, "\(report)")
        #expect(entry.notSynced && entry.skipped?.hasPrefix("notShared: ") == true, "\(entry)")
        #expect(entry.skipped?.contains("project \(project.id.hex)") == true && entry.skipped?.contains("1 record(s) of this device's words") == true)
        #expect(report.sent == 0 && report.received == 0)
        let expected = ["peer": keys.profile.deviceID.hex, "request": SyncWire.pullKind, "reason": "notShared",
                        "project": project.id.hex, "share": "revoked"]
        #expect(Self.refusals(f) == [expected])
        #expect(try F.texts(f.desk, project.id, document) == ["Owner first words.", "Notes:"])

        // Every later run still says the words are not delivered; the desk is not asked again.
        let again = try SharedProjectRosterTests.sync(colleague, keys, with: f)
        #expect(again.projects.first { $0.project == project.id }?.notSynced == true, "\(again)")
        #expect(Self.refusals(f) == [expected])
    }

    @Test func aViewerWithNothingUndeliveredIsToldInANoteAndTheDeskRecordsItsRequest() throws {
        let (f, colleague, keys, project, _) = try Self.revoked(.viewer)
        let report = try SharedProjectRosterTests.sync(colleague, keys, with: f)
        #expect(report.projects.allSatisfy { !$0.notSynced }, "\(report)")
        #expect(report.notes.contains { $0.contains("no longer shares project \(project.id.hex)") }, "\(report)")
        #expect(Self.refusals(f).map { $0["project"] } == [project.id.hex] && Self.refusals(f).map { $0["share"] } == ["revoked"])
    }
}
