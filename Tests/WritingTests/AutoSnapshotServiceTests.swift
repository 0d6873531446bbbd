import CryptoVault
import Foundation
import Testing
import TestSupport
@testable import Writing

/// AutoSnapshotService over AutoSnapshotPolicy, with the clock moved by hand: a snapshot exactly on
/// the edit that completes 3 minutes of active editing or 500 characters of change, and on every
/// switch away from a changed document, of the right document.
@Suite struct AutoSnapshotServiceTests {
    /// A service whose snapshots are only noted (document, in order), with documents A, B and C of one project.
    final class Recorder {
        let clock = ManualClock()
        let project: ProjectID
        let a: NodeID, b: NodeID, c: NodeID
        var taken: [NodeID] = []
        lazy var service = AutoSnapshotService(clock: clock.vaultClock) { [unowned self] document, project in
            taken.append(document)
            return Snapshot(id: try SnapshotID.random(), document: document, sequence: taken.count, origin: .automatic, title: nil,
                            isKeyframe: true, deviceID: try AuditDeviceID(bytes: [UInt8](repeating: 0, count: 16)), createdAt: 0)
        }

        init() throws {
            project = try ProjectID.random()
            (a, b, c) = (try NodeID.random(), try NodeID.random(), try NodeID.random())
        }

        func edit(_ document: NodeID, _ characters: Int = 1) throws -> [AutoSnapshot] {
            try service.edited(document, in: project, inserted: characters, deleted: 0)
        }
    }

    @Test("a snapshot on exactly the edit that brings active editing to 3 minutes, none before; then the count starts again")
    func threeMinutes() throws {
        let recorder = try Recorder()
        #expect(try recorder.edit(recorder.a).isEmpty)
        for _ in 0..<35 {
            recorder.clock.advance(5)
            #expect(try recorder.edit(recorder.a).isEmpty)
        }
        recorder.clock.advance(5)
        let taken = try recorder.edit(recorder.a)
        #expect(taken.map(\.triggers) == [[.activeEditing]] && taken.map(\.snapshot.document) == [recorder.a])
        // A pause past the idle gap counts nothing; 179 s more of steady editing is not yet due.
        recorder.clock.advance(600)
        #expect(try recorder.edit(recorder.a).isEmpty)
        for _ in 0..<179 {
            recorder.clock.advance(1)
            #expect(try recorder.edit(recorder.a).isEmpty)
        }
        recorder.clock.advance(1)
        #expect(try recorder.edit(recorder.a).map(\.triggers) == [[.activeEditing]])
        #expect(recorder.taken == [recorder.a, recorder.a])
    }

    @Test("a snapshot on the edit that brings the change to 500 characters (inserted plus deleted), then again 500 later")
    func fiveHundredCharacters() throws {
        let recorder = try Recorder()
        for _ in 0..<4 { #expect(try recorder.edit(recorder.a, 100).isEmpty) }
        #expect(try recorder.service.edited(recorder.a, in: recorder.project, inserted: 60, deleted: 39).isEmpty)
        #expect(try recorder.service.edited(recorder.a, in: recorder.project, inserted: 0, deleted: 1).map(\.triggers) == [[.characterCount]])
        for _ in 0..<499 { #expect(try recorder.edit(recorder.a).isEmpty) }
        #expect(try recorder.edit(recorder.a).map(\.triggers) == [[.characterCount]])
        #expect(recorder.taken == [recorder.a, recorder.a])
    }

    @Test("leaving a changed document snapshots it; leaving an unchanged one or staying does not")
    func documentSwitches() throws {
        let recorder = try Recorder()
        _ = try recorder.edit(recorder.a)
        // Editing B leaves A, which changed: A's snapshot, then B's edit.
        let taken = try recorder.edit(recorder.b)
        #expect(taken.map(\.triggers) == [[.documentSwitch]] && taken.map(\.snapshot.document) == [recorder.a])
        #expect(try recorder.service.switched(to: recorder.b, in: recorder.project) == nil, "no switch to the same document")
        #expect(try recorder.service.switched(to: recorder.c, in: recorder.project)?.snapshot.document == recorder.b)
        // C was only opened: leaving it takes nothing.
        #expect(try recorder.service.switched(to: recorder.a, in: recorder.project) == nil)
        #expect(recorder.taken == [recorder.a, recorder.b])
        // A switch restarts the counters: 499 characters in C after 400 in A are not due.
        _ = try recorder.edit(recorder.a, 400)
        _ = try recorder.service.switched(to: recorder.c, in: recorder.project)
        #expect(try recorder.edit(recorder.c, 499).isEmpty)
        #expect(recorder.taken == [recorder.a, recorder.b, recorder.a])
    }

    @Test("a titled snapshot restarts the counters")
    func titledRestarts() throws {
        let recorder = try Recorder()
        #expect(try recorder.edit(recorder.a, 400).isEmpty)
        recorder.service.titledSnapshotTaken()
        #expect(try recorder.edit(recorder.a, 400).isEmpty)
        #expect(try recorder.edit(recorder.a, 100).map(\.triggers) == [[.characterCount]])
    }

    @Test("over a vault: the automatic snapshots are stored, of the document's content when they were due")
    func storesSnapshots() throws {
        let fixture = try WritingFixture()
        let project = try fixture.project("Notes", register: .fiction, kind: .document)
        let (first, second) = try fixture.store { store in
            (try store.addNode(.scene, titled: "One", in: project.id), try store.addNode(.scene, titled: "Two", in: project.id))
        }
        let service = AutoSnapshotService(vault: fixture.unlocked, clock: ManualClock().vaultClock)
        let text = String(repeating: "x", count: 250)
        try fixture.store { try $0.replaceDocumentContent(of: first.id, in: project.id, with: try WritingFixture.paragraphs([text])) }
        #expect(try service.edited(first.id, in: project.id, inserted: 250, deleted: 0).isEmpty)
        let content = try WritingFixture.paragraphs([text, text])
        try fixture.store { try $0.replaceDocumentContent(of: first.id, in: project.id, with: content) }
        let taken = try service.edited(first.id, in: project.id, inserted: 250, deleted: 0)
        #expect(taken.map(\.snapshot.origin) == [.automatic])
        #expect(try fixture.store { try $0.snapshotContent(taken[0].snapshot.id, of: first.id, in: project.id) } == content)
        #expect(try service.switched(to: second.id, in: project.id) == nil, "no edit since the snapshot: leaving it takes none")
        try fixture.store { try $0.replaceDocumentContent(of: second.id, in: project.id, with: try WritingFixture.paragraphs(["Two."])) }
        #expect(try service.edited(second.id, in: project.id, inserted: 4, deleted: 0).isEmpty)
        let left = try service.switched(to: first.id, in: project.id)
        #expect(left?.triggers == [.documentSwitch] && left?.snapshot.document == second.id)
        #expect(try fixture.store { try $0.snapshots(of: second.id, in: project.id) }.map(\.id) == [left?.snapshot.id])
        #expect(try fixture.store { try $0.snapshots(of: first.id, in: project.id) }.count == 1)
    }
}
