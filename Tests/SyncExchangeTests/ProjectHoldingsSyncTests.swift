import Appliance
import CryptoVault
import PeerChannel
import Registers
@testable import Sync
import Testing
import TestSupport
import Writing

/// A project's entries (characters, places, plot beats, snippets), its name and its archived flag
/// travel as change operations 0x09 and 0x0A (SECURITY.md §19.2): written on one own device, they
/// show the same on the other, over a real channel on loopback; a malformed one is refused with
/// its reason and honest sync goes on.
@Suite(.serialized) struct ProjectHoldingsSyncTests {
    typealias F = SyncExchangeFixture

    /// Every entry of the project (kind, order, name, body, fields), its name and whether it is archived.
    static func holdings(_ vault: TestVault, _ projectID: ProjectID) throws -> [String] {
        let project = try vault.unlocked.transaction { tx in try WritingStore(tx).project(projectID) }
        return try F.store(vault, project) { store in
            try store.entries(in: projectID).map { entry in
                "\(entry.id.hex) \(entry.kind.rawValue) \(entry.orderKey) \(entry.name) | \(entry.body) | "
                    + entry.fields.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue)=\($0.value)" }.joined(separator: ",")
            } + ["name \(try store.name(of: project))", "archived \(try store.project(projectID).isArchived)"]
        }
    }

    @Test func entriesTheNameAndTheArchivedFlagSyncBothWays() throws {
        let f = try F()
        let project = try F.project(f.laptop, "Case file")
        _ = try F.document(f.laptop, in: project, "Notes", ["first"])
        let (lead, place) = try f.laptop.unlocked.transaction { tx in
            let store = WritingStore(tx)
            let lead = try store.addEntry(.character, named: "Ada Okafor", body: "Claimant.", fields: [.personRole: "claimant", .personArc: "settles"],
                                          in: project.id)
            let place = try store.addEntry(.place, named: "Harbour office", fields: [.placeDescription: "Second floor"], in: project.id)
            _ = try store.addEntry(.plotBeat, named: "Hearing", body: "Adjourned to May.", in: project.id)
            _ = try store.addEntry(.snippet, named: "Sign-off", body: "Kind regards, é ß 日本", in: project.id)
            try store.rename(project.id, to: "Case file — Okafor")
            return (lead, place)
        }
        let first = try f.syncLaptop()
        #expect(first.refused == 0, "\(first)")
        #expect(try Self.holdings(f.desk, project.id) == Self.holdings(f.laptop, project.id))
        #expect(try Self.holdings(f.desk, project.id).count == 6)

        // The desk changes one entry, removes another, adds one and archives the project: the laptop follows.
        try f.desk.unlocked.transaction { tx in
            let store = WritingStore(tx)
            var changed = lead
            changed.body = "Claimant; represented."
            changed.fields[.personRelationship] = "sister of the witness"
            try store.updateEntry(changed, in: project.id)
            try store.removeEntry(place.id, in: project.id)
            _ = try store.addEntry(.character, named: "Witness", in: project.id)
            try store.archive(project.id)
        }
        let second = try f.syncLaptop()
        #expect(second.refused == 0 && second.received == 1, "\(second)")
        let laptop = try Self.holdings(f.laptop, project.id)
        #expect(laptop == (try Self.holdings(f.desk, project.id)))
        #expect(laptop.contains { $0.contains("Claimant; represented.") && $0.contains("personRelationship=sister of the witness") })
        #expect(!laptop.contains { $0.contains("Harbour office") } && laptop.contains("archived true"))
        #expect(F.details(f.laptop, .writingEntryRemove, "from") == [f.deskKeys.profile.deviceID.hex])
        #expect(F.details(f.laptop, .writingProjectArchive, "from") == [f.deskKeys.profile.deviceID.hex])

        // Brought back on the laptop: the desk follows, and nothing more is sent once both agree.
        try f.laptop.unlocked.transaction { tx in try WritingStore(tx).archive(project.id, false) }
        #expect(try f.syncLaptop().sent == 1)
        #expect(try Self.holdings(f.desk, project.id).contains("archived false"))
        let quiet = try f.syncLaptop()
        #expect(quiet.sent == 0 && quiet.received == 0, "\(quiet)")
    }

    /// Whole-project snapshots travel too (0x0B), naming their documents' versions (document
    /// snapshots, 0x06): the desk lists the laptop's with the same ids, titles, times and binders,
    /// and restores the project to one; a malformed one is refused.
    @Test func projectSnapshotsTravelAndRestoreOnTheOtherDevice() throws {
        let f = try F()
        let project = try F.project(f.laptop, "Case file")
        let document = try F.document(f.laptop, in: project, "Notes", ["first"])
        let titled = try f.laptop.unlocked.transaction { tx in try WritingStore(tx).createProjectSnapshot(of: project.id, titled: "Before the hearing") }
        try F.edit(f.laptop, project, document, block: 0, to: "first, after the hearing")
        _ = try f.laptop.unlocked.transaction { tx in try WritingStore(tx).createProjectSnapshot(of: project.id) }
        let report = try f.syncLaptop()
        #expect(report.refused == 0, "\(report)")
        func listed(_ vault: TestVault) throws -> [String] {
            try vault.unlocked.transaction { tx in
                let store = WritingStore(tx)
                return try store.projectSnapshots(of: project.id).map { snapshot in
                    "\(snapshot.id.hex) \(snapshot.origin.rawValue) \(snapshot.title ?? "-") \(snapshot.deviceID.hex) \(snapshot.createdAt) "
                        + (try store.projectSnapshotNodes(snapshot.id, of: project.id).map { "\($0.id.hex) \($0.title) \($0.snapshot?.hex ?? "-")" }
                            .joined(separator: ","))
                }.sorted()
            }
        }
        let laptop = try listed(f.laptop)
        #expect(laptop.count == 2 && laptop.contains { $0.contains("Before the hearing") })
        #expect(try listed(f.desk) == laptop)
        #expect(F.details(f.desk, .writingProjectSnapshotCreate, "from").contains(f.laptopKeys.profile.deviceID.hex))
        // The desk restores the project to the titled one: its words come back there.
        let deskProject = try f.desk.unlocked.transaction { tx in try WritingStore(tx).project(project.id) }
        _ = try f.desk.unlocked.transaction { tx in try WritingStore(tx).restoreProject(project.id, to: titled.id) }
        #expect(try F.texts(f.desk, deskProject.id, document) == ["first"])
        #expect(try f.syncLaptop().refused == 0)
        #expect(try F.texts(f.laptop, project.id, document) == ["first"])
        #expect(try listed(f.laptop) == (try listed(f.desk)))
    }

    /// Two devices change one entry at once: the write of higher rank wins on both (last writer
    /// wins, §19.3), whichever order the records arrive in.
    @Test func concurrentChangesOfOneEntrySettleAlikeOnBothDevices() throws {
        let f = try F()
        let project = try F.project(f.laptop, "Novel")
        let entry = try f.laptop.unlocked.transaction { tx in try WritingStore(tx).addEntry(.character, named: "Mara", in: project.id) }
        try f.syncLaptop()
        for (vault, body) in [(f.laptop, "from the laptop"), (f.desk, "from the desk")] {
            try vault.unlocked.transaction { tx in
                var changed = entry
                changed.body = body
                try WritingStore(tx).updateEntry(changed, in: project.id)
            }
        }
        try f.syncLaptop()
        try f.syncLaptop()
        let laptop = try Self.holdings(f.laptop, project.id), desk = try Self.holdings(f.desk, project.id)
        #expect(laptop == desk)
        #expect(laptop.contains { $0.contains("from the laptop") } != laptop.contains { $0.contains("from the desk") })
    }

    /// Hostile or malformed 0x09 and 0x0A operations, signed by the paired laptop's key: each refused
    /// as `malformedRecord` by the desk, recorded, and an honest record after them still syncs.
    @Test func malformedEntryAndProjectOperationsAreRefusedAndSyncGoesOn() throws {
        let f = try F()
        let (project, document, author, head) = try HostileRecordTests.synced(f)
        let entry = try EntryID.random()
        let good = ProjectEntry(id: entry, kind: .place, name: "Office", fields: [.placeDescription: "ok"], orderKey: "1i")
        func record(_ operations: [UInt8]) throws -> [UInt8] {
            var body = ChangeRecordCodec.magic + [ChangeRecordCodec.version] + project.id.bytes + author.device.bytes
            SyncByteReader.append(head.counter + 1, size: 8, to: &body)
            SyncByteReader.append(head.lamport + 1, size: 8, to: &body)
            body += [1] + head.hash
            body += operations
            return body + (try author.key.signature(for: ChangeRecordCodec.signingInput(body)))
        }
        func one(_ operation: ProjectOperation) -> [UInt8] {
            var out: [UInt8] = [0, 1]
            try! ProjectOperationCodec.encode(operation, to: &out)  // every string here fits its length
            return out
        }
        var aPersonsSlotOnAPlace = one(.entry(entry, .present(good)))
        let slot = Array("placeDescription".utf8), person = Array("personArc".utf8)
        let at = try #require(aPersonsSlotOnAPlace.indices.first { Array(aPersonsSlotOnAPlace[$0..<min($0 + slot.count, aPersonsSlotOnAPlace.count)]) == slot })
        aPersonsSlotOnAPlace.replaceSubrange((at - 1)..<(at + slot.count), with: [UInt8(person.count)] + person)
        let lengthAt = 2 + 1 + 16 + 1 + 1 + 1 + 2
        let valueLength = Int(aPersonsSlotOnAPlace[lengthAt..<lengthAt + 4].reduce(0) { $0 << 8 | UInt64($1) }) - slot.count + person.count
        aPersonsSlotOnAPlace.replaceSubrange(lengthAt..<lengthAt + 4, with: [UInt8(valueLength >> 24), UInt8(valueLength >> 16 & 0xFF),
                                                                            UInt8(valueLength >> 8 & 0xFF), UInt8(valueLength & 0xFF)])
        var edgeSpace = good
        edgeSpace.name = "Office "
        let variants: [(String, [UInt8])] = [
            ("a person's slot on a place", aPersonsSlotOnAPlace),
            ("an entry name ending with a space", one(.entry(entry, .present(edgeSpace)))),
            ("entry kind 5", { var bytes = one(.entry(entry, .present(good))); bytes[2 + 1 + 16 + 1] = 5; return bytes }()),
            ("entry value 2", [0, 1, 9] + entry.bytes + [2]),
            ("project field 3", [0, 1, 10, 3]),
            ("an archived time past 2^63 - 1", [0, 1, 10, 2, 0x80, 0, 0, 0, 0, 0, 0, 0]),
            ("a project name with a control character", one(.name("Case\u{7}"))),
            ("an entry cut short", Array(one(.entry(entry, .present(good))).dropLast(3))),
            ("one entry written twice", [0, 2] + Array(one(.entry(entry, .removed)).dropFirst(2)) + Array(one(.entry(entry, .present(good))).dropFirst(2))),
            ("the archived flag written twice", [0, 2] + Array(one(.archived(5)).dropFirst(2)) + Array(one(.archived(nil)).dropFirst(2))),
            ("a project snapshot's document without a version", one(.projectSnapshot(SyncedProjectSnapshot(
                id: try ProjectSnapshotID.random(), origin: .automatic, title: nil, deviceID: try AuditDeviceID.random(), createdAt: 1,
                nodes: [ProjectSnapshotNode(synced: document, kind: .scene, parent: nil, orderKey: "1i", title: "Day", snapshot: nil)])))),
            ("a project snapshot node under a folder not listed", one(.projectSnapshot(SyncedProjectSnapshot(
                id: try ProjectSnapshotID.random(), origin: .automatic, title: nil, deviceID: try AuditDeviceID.random(), createdAt: 1,
                nodes: [ProjectSnapshotNode(synced: document, kind: .scene, parent: try NodeID.random(), orderKey: "1i", title: "Day",
                                            snapshot: try SnapshotID.random())])))),
        ]
        let transport = try f.transport()
        for (name, operations) in variants {
            let answer = try HostileRecordTests.push([try record(operations)], project.id, over: transport)
            #expect(answer.refused == ["malformedRecord"] && answer.stored == 0, "\(name): \(answer.refused)")
        }
        #expect(F.details(f.desk, .syncRecordRefused, "reason") == Array(repeating: "malformedRecord", count: variants.count))
        // Honest sync goes on: the laptop's own entry (its record of that number) and edit arrive.
        try f.laptop.unlocked.transaction { tx in
            _ = try WritingStore(tx).addEntry(.place, named: "Office", fields: [.placeDescription: "ok"], in: project.id)
        }
        try F.edit(f.laptop, project, document, block: 0, to: "morning, later")
        let report = try f.syncLaptop()
        #expect(report.refused == 0, "\(report)")
        #expect(try F.texts(f.desk, project.id, document) == ["morning, later"])
        #expect(try Self.holdings(f.desk, project.id).contains { $0.contains("Office") && $0.contains("placeDescription=ok") })
    }
}
