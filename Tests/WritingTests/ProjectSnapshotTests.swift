import CryptoVault
import Foundation
import Testing
import TestSupport
@testable import Writing

/// Project-wide snapshots (SECURITY.md §15.2): the binder and a document version per document,
/// linked through the document snapshot store; a restore brings the whole project back in one
/// transaction, as a version, audited.
@Suite struct ProjectSnapshotTests {
    let fixture: WritingFixture
    let project: WritingProject
    let folder: NodeID, arrival: NodeID, harbour: NodeID

    init() throws {
        fixture = try WritingFixture()
        let project = try fixture.project()
        self.project = project
        (folder, arrival, harbour) = try fixture.store { store in
            let folder = try store.addNode(.chapter, titled: "Part one", in: project.id).id
            let arrival = try store.addNode(.scene, titled: "Arrival", in: project.id, under: folder).id
            let harbour = try store.addNode(.scene, titled: "Harbour", in: project.id, under: folder).id
            try store.replaceDocumentContent(of: arrival, in: project.id, with: try WritingFixture.paragraphs(["The boat came in."]))
            try store.replaceDocumentContent(of: harbour, in: project.id, with: try WritingFixture.paragraphs(["Gulls."]))
            return (folder, arrival, harbour)
        }
    }

    func write(_ text: String, to document: NodeID) throws {
        try fixture.store { try $0.replaceDocumentContent(of: document, in: project.id, with: try WritingFixture.paragraphs([text])) }
    }

    func text(of document: NodeID) throws -> [String] {
        try fixture.store { try $0.documentContent(of: document, in: project.id) }.blocks.map(\.text)
    }

    @Test("a project snapshot holds the binder and a version of each document; an unchanged document links its latest version, an unchanged project is not taken again")
    func takingLinksDocumentVersions() throws {
        let first = try fixture.store { try $0.createProjectSnapshot(of: project.id, titled: "Draft one") }
        #expect(first.sequence == 1 && first.origin == .titled && first.title == "Draft one")
        let again = try fixture.store { try $0.createProjectSnapshot(of: project.id) }
        #expect(again.id == first.id, "nothing changed: the latest is returned")
        try write("The boat came in late.", to: arrival)
        let second = try fixture.store { try $0.createProjectSnapshot(of: project.id) }
        #expect(second.sequence == 2 && second.origin == .automatic)
        let (nodesOne, nodesTwo, versions) = try fixture.store { store in
            (try store.projectSnapshotNodes(first.id, of: project.id), try store.projectSnapshotNodes(second.id, of: project.id),
             try store.snapshots(of: harbour, in: project.id))
        }
        #expect(nodesOne.map(\.title) == ["Part one", "Arrival", "Harbour"] && nodesOne.map(\.parent) == [nil, folder, folder])
        #expect(nodesOne[0].snapshot == nil && nodesOne[2].snapshot == nodesTwo[2].snapshot, "Harbour did not change: one version, linked twice")
        #expect(versions.count == 1 && nodesOne[1].snapshot != nodesTwo[1].snapshot)
        #expect(fixture.vault.recording.actions.filter { $0 == "writing.project-snapshot-create" }.count == 2)
    }

    @Test("restore brings back every document's content, place and title in one transaction, keeps what was added since, and is itself a version")
    func restoreBringsTheProjectBack() throws {
        let snapshot = try fixture.store { try $0.createProjectSnapshot(of: project.id, titled: "Draft one") }
        try write("Rewritten entirely.", to: arrival)
        let added = try fixture.store { store in
            try store.renameNode(harbour, in: project.id, to: "The harbour at night")
            try store.moveNode(harbour, in: project.id, under: nil)
            try store.renameNode(folder, in: project.id, to: "Part 1")
            return try store.addNode(.scene, titled: "Epilogue", in: project.id).id
        }
        let result = try fixture.store { try $0.restoreProject(project.id, to: snapshot.id) }
        #expect(result.documentsRestored == 1 && result.version.origin == .restore && result.before.sequence == 2)
        #expect(try text(of: arrival) == ["The boat came in."])
        #expect(try text(of: harbour) == ["Gulls."])
        let nodes = try fixture.store { try $0.nodes(in: project.id) }
        #expect(nodes.map(\.title) == ["Part one", "Arrival", "Harbour", "Epilogue"])
        #expect(nodes.first { $0.id == harbour }?.parent == folder && nodes.contains { $0.id == added })
        let undone = try fixture.store { try $0.restoreProject(project.id, to: result.before.id) }
        #expect(try text(of: arrival) == ["Rewritten entirely."] && undone.documentsRestored == 1)
        #expect(try fixture.store { try $0.node(harbour, in: project.id) }.title == "The harbour at night")
        let restore = try #require(fixture.vault.recording.events.withLock { $0 }.last { $0.action == .writingProjectSnapshotRestore })
        #expect(restore.details.map(\.name) == ["snapshot", "before", "version", "restored"] && restore.subjectID == project.id.bytes)
    }

    @Test("a folder removed since is made again with its id and title")
    func removedFolderComesBack() throws {
        let empty = try fixture.store { try $0.addNode(.chapter, titled: "Notes", in: project.id).id }
        let snapshot = try fixture.store { try $0.createProjectSnapshot(of: project.id) }
        try fixture.store { try $0.removeNode(empty, in: project.id) }
        try fixture.store { try $0.restoreProject(project.id, to: snapshot.id) }
        #expect(try fixture.store { try $0.node(empty, in: project.id) }.title == "Notes")
    }

    @Test("a version holding a document removed since is refused as snapshotNotFound and nothing changes; another project's is notInProject")
    func restoreRefusals() throws {
        let snapshot = try fixture.store { try $0.createProjectSnapshot(of: project.id) }
        try fixture.store { try $0.removeNode(harbour, in: project.id) }
        try write("Changed.", to: arrival)
        let state = try fixture.storeState()
        #expect(writingCode { try fixture.store { try $0.restoreProject(project.id, to: snapshot.id) } } == .snapshotNotFound)
        #expect(try fixture.storeState() == state)
        let other = try fixture.project("Other")
        #expect(writingCode { try fixture.store { try $0.restoreProject(other.id, to: snapshot.id) } } == .notInProject)
    }

    @Test("a privileged project's snapshots are taken, listed and restored only in a session of its compartment")
    func privilegedNeedsASession() throws {
        let intake = try fixture.project("Intake", register: .healthcare, kind: .document)
        let session = try fixture.session(of: intake)
        defer { try? session.end() }
        _ = try fixture.store(.session(session)) { try $0.addNode(.scene, titled: "Session 1", in: intake.id) }
        #expect(writingCode { try fixture.store { try $0.createProjectSnapshot(of: intake.id) } } == .privilegedSessionRequired)
        let snapshot = try fixture.store(.session(session)) { try $0.createProjectSnapshot(of: intake.id) }
        #expect(writingCode { try fixture.store { try $0.projectSnapshots(of: intake.id) } } == .privilegedSessionRequired)
        #expect(writingCode { try fixture.store { try $0.restoreProject(intake.id, to: snapshot.id) } } == .privilegedSessionRequired)
        #expect(try fixture.store(.session(session)) { try $0.projectSnapshots(of: intake.id) }.map(\.id) == [snapshot.id])
    }
}
