import CryptoVault
import Testing
import TestSupport
@testable import Sync
import Writing

/// The owner archives a project on one device while another own device, not knowing, edits it
/// (review 17 s11, N-s11-2). The archive is a lock on this device's own edits, never on what sync
/// brings: the device that archived takes the concurrent edit, the other takes the archive, and both
/// end archived with the edit, whichever order the records arrive in. Before, the archiving device
/// refused the edit (`writingRefused`, the project archived there) at every exchange, and the two
/// split for good while the project stayed archived.
@Suite struct ArchiveWithConcurrentEditTests {
    static let desk = 0, laptop = 1

    /// A synced document on both; then the desk archives while the laptop writes a second paragraph.
    static func archivedWhileEdited() throws -> (VersionFleet, NodeID) {
        let fleet = try VersionFleet(devices: 2)
        let document = try fleet.document(on: desk, ["Owner words one."])
        try fleet.syncAll()
        try fleet.store(desk) { try $0.archive(fleet.project) }
        try fleet.store(laptop) { store in
            var content = try store.documentContent(of: document, in: fleet.project)
            content.blocks.append(Block(id: try BlockID.random(), kind: .paragraph, text: "Laptop words, written while the desk archived."))
            try store.replaceDocumentContent(of: document, in: fleet.project, with: content)
        }
        return (fleet, document)
    }

    static func shown(_ fleet: VersionFleet, _ document: NodeID, on device: Int) throws -> (texts: [String], archivedAt: Int64?) {
        (try fleet.content(document, on: device).blocks.map(\.text), try fleet.store(device) { try $0.project(fleet.project).archivedAt })
    }

    /// `fleet.sync` expects every record taken (before: the desk's receive threw `projectArchived`).
    @Test(arguments: [true, false])
    func bothOwnDevicesEndArchivedWithTheEditWhicheverOrderTheRecordsArrive(deskTakesTheEditFirst: Bool) throws {
        let (fleet, document) = try Self.archivedWhileEdited()
        let archivedAt = try #require(try fleet.store(Self.desk) { try $0.project(fleet.project).archivedAt })
        if deskTakesTheEditFirst {
            try fleet.sync(from: Self.laptop, to: Self.desk)
            try fleet.sync(from: Self.desk, to: Self.laptop)
        } else {
            try fleet.sync(from: Self.desk, to: Self.laptop)
            try fleet.sync(from: Self.laptop, to: Self.desk)
        }
        let expected = ["Owner words one.", "Laptop words, written while the desk archived."]
        for device in [Self.desk, Self.laptop] {
            let shown = try Self.shown(fleet, document, on: device)
            #expect(shown.texts == expected, "device \(device)")
            #expect(shown.archivedAt == archivedAt, "device \(device)")
            // Nothing left to send: the store is what the records make, on both.
            #expect(try fleet.sync(device) { try $0.commitLocalChanges(in: fleet.project) } == nil, "device \(device)")
        }
        // Neither device refused a record (before: the desk's `sync.record-refused`, reason `writingRefused`).
        for device in [Self.desk, Self.laptop] {
            #expect(fleet.vaults[device].recording.events.withLock { $0.filter { $0.action == .syncRecordRefused }.isEmpty }, "device \(device)")
        }
        // The archive still locks this device's own edits, on both.
        for device in [Self.desk, Self.laptop] {
            #expect(throws: WritingError(.projectArchived, "")) {
                try fleet.edit(document, on: device, paragraph: 0, to: "changed after the archive")
            }
        }
    }
}
