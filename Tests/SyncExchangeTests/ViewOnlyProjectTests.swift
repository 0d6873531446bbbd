import CryptoVault
import Sync
import Testing
import TestSupport
import Writing

/// A project shared with this device to view only refuses this device's own changes where they are
/// made (issue 17, SECURITY.md §19.9): every writing change is refused by the writing store with
/// `viewOnly`, nothing changes, and each refusal is recorded (`writing.change-refused`) though its
/// transaction rolled back; what the owner changes still arrives, and an editor's share lifts it.
@Suite struct ViewOnlyProjectTests {
    typealias F = SyncExchangeFixture

    /// The desk's project shared with the laptop as viewer, synced once: a document with a
    /// snapshot, an open branch, an entry and a project snapshot, all on the laptop too.
    struct Shared {
        let f: F
        let project: WritingProject
        let laptopProject: WritingProject
        let document: NodeID
        let folder: NodeID
        let snapshot: SnapshotID
        let branch: BranchID
        let entry: EntryID
        let projectSnapshot: ProjectSnapshotID

        init() throws {
            f = try F(deskTrusts: .other, laptopTrusts: .other)
            project = try F.project(f.desk, "Brief")
            document = try F.document(f.desk, in: project, "Draft", ["first", "second"])
            let project = self.project, document = self.document
            (folder, snapshot, branch, entry, projectSnapshot) = try f.desk.unlocked.transaction { tx in
                let store = WritingStore(tx)
                let folder = try store.addNode(.chapter, titled: "Part one", in: project.id)
                let snapshot = try store.createSnapshot(of: document, in: project.id, titled: "Before")
                var proposal = try store.documentContent(of: document, in: project.id)
                proposal.blocks[0].text = "first, proposed"
                let branch = try store.createBranch(of: document, in: project.id, base: snapshot.id, content: proposal,
                                                    kind: .manual, provenance: "the desk")
                let entry = try store.addEntry(.character, named: "Ada", in: project.id)
                let projectSnapshot = try store.createProjectSnapshot(of: project.id, titled: "All")
                return (folder.id, snapshot.id, branch.id, entry.id, projectSnapshot.id)
            }
            try F.share(project, of: f.desk, with: f.laptop, role: .viewer)
            #expect(try f.syncLaptop().received >= 1)
            laptopProject = try f.laptop.unlocked.transaction { tx in try WritingStore(tx).project(project.id) }
        }

        /// Every change a writer can ask of the store, each in its own transaction, by name.
        func changes() -> [(String, (WritingStore) throws -> Void)] {
            let id = project.id, document = document, folder = folder, snapshot = snapshot, branch = branch, entry = entry
            let projectSnapshot = projectSnapshot
            return [
                ("doc write", { store in
                    var content = try store.documentContent(of: document, in: id)
                    content.blocks[1].text = "second, by the viewer"
                    try store.editDocumentContent(of: document, in: id, with: content)
                }),
                ("doc write (whole content)", { store in
                    try store.replaceDocumentContent(of: document, in: id, with: DocumentContent(blocks: [
                        Block(id: try BlockID.random(), kind: .paragraph, text: "replaced"),
                    ]))
                }),
                ("doc add", { store in _ = try store.addNode(.scene, titled: "Mine", in: id) }),
                ("doc rename", { store in try store.renameNode(document, in: id, to: "Renamed") }),
                ("doc move", { store in try store.moveNode(document, in: id, under: folder) }),
                ("doc rm", { store in try store.removeNode(document, in: id) }),
                ("snapshot create", { store in _ = try store.createSnapshot(of: document, in: id, titled: "Mine") }),
                ("snapshot restore", { store in _ = try store.restore(document, in: id, to: snapshot) }),
                ("branch create", { store in
                    _ = try store.createBranch(of: document, in: id, base: snapshot, content: try store.documentContent(of: document, in: id),
                                               kind: .manual, provenance: "the viewer")
                }),
                ("branch adopt", { store in _ = try store.adopt(branch, of: document, in: id) }),
                ("branch discard", { store in _ = try store.discard(branch, of: document, in: id) }),
                ("branch revert", { store in _ = try store.revert(branch, of: document, in: id) }),
                ("entry add", { store in _ = try store.addEntry(.place, named: "Home", in: id) }),
                ("entry rm", { store in try store.removeEntry(entry, in: id) }),
                ("project rename", { store in try store.rename(id, to: "Mine now") }),
                ("project archive", { store in try store.archive(id) }),
                ("project register", { store in try store.setRegister(id, .fiction) }),
                ("project snapshot", { store in _ = try store.createProjectSnapshot(of: id, titled: "Mine") }),
                ("project restore", { store in _ = try store.restoreProject(id, to: projectSnapshot) }),
            ]
        }
    }

    static func refusals(_ vault: TestVault) -> [VaultEvent] {
        vault.recording.events.withLock { $0.filter { $0.action == .writingChangeRefused } }
    }

    @Test func everyChangeOfAViewOnlyProjectIsRefusedWithTheRoleNothingChangesAndEachRefusalIsRecorded() throws {
        let s = try Shared()
        #expect(s.laptopProject.isViewOnly)
        #expect(F.details(s.f.laptop, .writingProjectViewOnly, "view-only") == ["yes"])
        let before = try F.texts(s.f.laptop, s.project.id, s.document)
        #expect(before == ["first", "second"])
        let outlineBefore = try s.f.laptop.unlocked.transaction { tx in try WritingStore(tx).outline(of: s.project.id).map(\.id) }
        let changes = s.changes()
        for (name, change) in changes {
            do {
                try s.f.laptop.unlocked.transaction { tx in try change(WritingStore(tx)) }
                Issue.record("\(name) was not refused")
            } catch let error as WritingError {
                #expect(error.code == .viewOnly, "\(name): \(error)")
                #expect(error.message.contains("shared with you to view only"), "\(name): \(error.message)")
            }
        }
        // Nothing changed: the words, the binder, the versions, the entries, the name and flags.
        #expect(try F.texts(s.f.laptop, s.project.id, s.document) == before)
        try s.f.laptop.unlocked.transaction { tx in
            let store = WritingStore(tx)
            #expect(try store.outline(of: s.project.id).map(\.id) == outlineBefore)
            #expect(try store.snapshots(of: s.document, in: s.project.id).count == 1)
            #expect(try store.branches(of: s.document, in: s.project.id).map(\.state) == [.open])
            #expect(try store.entries(in: s.project.id).map(\.id) == [s.entry])
            #expect(try store.projectSnapshots(of: s.project.id).count == 1)
            let project = try store.project(s.project.id)
            #expect(try store.name(of: project) == "Brief" && !project.isArchived && project.register == .general)
        }
        // Each refusal recorded once, naming the project, its compartment and the reason; no words.
        let refused = Self.refusals(s.f.laptop)
        #expect(refused.count == changes.count, "\(refused.count) of \(changes.count)")
        #expect(refused.allSatisfy { $0.subjectID == s.project.id.bytes && $0.compartmentID == s.laptopProject.compartment.id })
        #expect(refused.allSatisfy { $0.details.map(\.name) == ["reason"] && $0.details[0].value == "view-only" })
        // The refused changes never reach the owner either: nothing to send.
        #expect(try s.f.syncLaptop().sent == 0)
    }

    @Test func theOwnersChangesStillArriveAndAnEditorsShareLiftsTheRefusal() throws {
        let s = try Shared()
        try F.edit(s.f.desk, s.project, s.document, block: 0, to: "first, by the owner")
        try s.f.syncLaptop()
        #expect(try F.texts(s.f.laptop, s.project.id, s.document) == ["first, by the owner", "second"])
        #expect(Self.refusals(s.f.laptop).isEmpty, "receiving is not refused")

        try SyncControl.shared(s.project.compartment, with: s.f.laptopKeys.profile.deviceID, role: .editor, in: s.f.desk.unlocked)
        try s.f.syncLaptop()
        #expect(F.details(s.f.laptop, .writingProjectViewOnly, "view-only") == ["yes", "no"])
        try F.edit(s.f.laptop, s.laptopProject, s.document, block: 1, to: "second, by the editor")
        #expect(try s.f.syncLaptop().sent == 1)
        #expect(try F.texts(s.f.desk, s.project.id, s.document) == ["first, by the owner", "second, by the editor"])

        // Made a viewer again: refused again.
        try SyncControl.shared(s.project.compartment, with: s.f.laptopKeys.profile.deviceID, role: .viewer, in: s.f.desk.unlocked)
        try s.f.syncLaptop()
        #expect(throws: WritingError(.viewOnly, "")) { try F.edit(s.f.laptop, s.laptopProject, s.document, block: 1, to: "again") }
        #expect(F.details(s.f.laptop, .writingProjectViewOnly, "view-only") == ["yes", "no", "yes"])
    }
}
