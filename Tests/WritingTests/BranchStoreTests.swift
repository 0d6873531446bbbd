import CryptoVault
import Foundation
import Testing
import PrivilegedSession
import TestSupport
@testable import Writing

/// Branches (SECURITY.md §15.3): proposals against a snapshot, adopted with a three-way merge when
/// the document moved on, never dropping an overlapping change, reverted byte for byte, discarded
/// but kept, each recorded; refused when they belong elsewhere or when a privileged project is read
/// without a session.
@Suite struct BranchStoreTests {
    /// A project with one document holding `start`, snapshotted as the base.
    struct Setting {
        let fixture: WritingFixture
        let project: WritingProject
        let document: BinderNode
        let base: Snapshot

        init(_ start: DocumentContent, register: Register = .fiction, access: (WritingFixture, WritingProject) throws -> RecordAccess = { _, _ in .vault }) throws {
            let fixture = try WritingFixture()
            let project = try fixture.project("Notes", register: register, kind: .document)
            let access = try access(fixture, project)
            let document = try fixture.store { try $0.addNode(.scene, titled: "Draft", in: project.id) }
            try fixture.store(access) { try $0.replaceDocumentContent(of: document.id, in: project.id, with: start) }
            base = try fixture.store(access) { try $0.createSnapshot(of: document.id, in: project.id) }
            self.fixture = fixture
            self.project = project
            self.document = document
        }

        func store<Result>(_ access: RecordAccess = .vault, _ body: (WritingStore, ProjectID, NodeID) throws -> Result) throws -> Result {
            try fixture.store(access) { try body($0, project.id, document.id) }
        }

        func propose(_ content: DocumentContent, kind: BranchKind = .aiSuggestion, _ access: RecordAccess = .vault) throws -> Branch {
            try store(access) { try $0.createBranch(of: $2, in: $1, base: base.id, content: content, kind: kind, provenance: "assistant: tighten") }
        }

        func current(_ access: RecordAccess = .vault) throws -> [UInt8] {
            SnapshotContent.encode(try store(access) { try $0.documentContent(of: $2, in: $1) })
        }

        func write(_ content: DocumentContent) throws {
            try store { try $0.replaceDocumentContent(of: $2, in: $1, with: content) }
        }
    }

    static func edited(_ content: DocumentContent, _ index: Int, to text: String) -> DocumentContent {
        var content = content
        content.blocks[index].text = text
        return content
    }

    @Test("a branch made with a given id (a sync conflict's) keeps it, and a second branch of that id is refused")
    func givenIDIsKeptAndNeverReused() throws {
        let start = try WritingFixture.paragraphs(["S: slept badly."])
        let setting = try Setting(start)
        let id = try BranchID.random()
        let proposal = Self.edited(start, 0, to: "S: slept poorly.")
        let made = try setting.store {
            try $0.createBranch(of: $2, in: $1, base: setting.base.id, content: proposal, kind: .syncConflict, provenance: "sync conflict", id: id)
        }
        #expect(made.id == id)
        #expect(try setting.store { try $0.branches(of: $2, in: $1) }.map(\.id) == [id])
        let again = writingCode {
            try setting.store { try $0.createBranch(of: $2, in: $1, base: setting.base.id, content: start, kind: .syncConflict, provenance: "sync conflict", id: id) }
        }
        #expect(again == .invalidIdentifier)
        #expect(try setting.store { try $0.branchContent(id, of: $2, in: $1) } == proposal)
    }

    @Test("a branch is stored open with its kind and provenance, listed with the document's others, and reads back its content")
    func createAndList() throws {
        let start = try WritingFixture.paragraphs(["S: slept badly.", "O: calm."])
        let setting = try Setting(start)
        let proposal = Self.edited(start, 0, to: "S: slept poorly.")
        let first = try setting.propose(proposal)
        let second = try setting.propose(start, kind: .manual)
        #expect(first.state == .open && first.kind == .aiSuggestion && first.provenance == "assistant: tighten" && first.base == setting.base.id)
        #expect(try setting.store { try $0.branches(of: $2, in: $1) } == [first, second])
        #expect(try setting.store { try $0.branch(first.id, of: $2, in: $1) } == first)
        let read = try setting.store { try $0.branchContent(first.id, of: $2, in: $1) }
        #expect(SnapshotContent.encode(read) == SnapshotContent.encode(proposal))
        #expect(try setting.current() == SnapshotContent.encode(start), "proposing does not touch the document")
    }

    @Test("adopting on an unmoved document makes it the branch's content and takes a snapshot of origin adopt")
    func adoptUnmoved() throws {
        let start = try WritingFixture.paragraphs(["S: slept badly.", "O: calm."])
        let setting = try Setting(start)
        var proposal = Self.edited(start, 1, to: "O: calm, alert.")
        proposal.blocks.append(Block(id: try BlockID.random(), kind: .paragraph, text: "P: review in a week."))
        let branch = try setting.propose(proposal)
        let adopted = try setting.store { try $0.adopt(branch.id, of: $2, in: $1) }
        #expect(try setting.current() == SnapshotContent.encode(proposal))
        #expect(adopted.origin == .adopt)
        let stored = try setting.store { try $0.branch(branch.id, of: $2, in: $1) }
        #expect(stored.state == .adopted && stored.adoption == adopted.id && stored.beforeAdoption == setting.base.id)
        #expect(SnapshotContent.encode(try setting.store { try $0.snapshotContent(adopted.id, of: $2, in: $1) }) == SnapshotContent.encode(proposal))
    }

    @Test("adopting on a moved document merges both sides: the document's edit and the branch's are both in the result")
    func adoptMovedMerges() throws {
        let start = try WritingFixture.paragraphs(["S: slept badly.", "O: calm.", "A: improving.", "P: continue."])
        let setting = try Setting(start)
        let branch = try setting.propose(Self.edited(start, 3, to: "P: continue; add CBT."))
        try setting.write(Self.edited(start, 0, to: "S: slept badly, woke at 4."))
        _ = try setting.store { try $0.adopt(branch.id, of: $2, in: $1) }
        let texts = try setting.store { try $0.documentContent(of: $2, in: $1) }.blocks.map(\.text)
        #expect(texts == ["S: slept badly, woke at 4.", "O: calm.", "A: improving.", "P: continue; add CBT."])
        #expect(setting.fixture.vault.recording.details(of: "writing.branch-adopt").last?["merged"] == "yes")
    }

    @Test("adoptionConflicts shows each overlap whole: the base's, the document's and the proposal's blocks there; none for a branch that merges")
    func overlapIsShown() throws {
        let start = try WritingFixture.paragraphs(["S: slept badly.", "O: calm.", "P: continue."])
        let setting = try Setting(start)
        let overlapping = try setting.propose(Self.edited(start, 0, to: "S: slept poorly."))
        let merging = try setting.propose(Self.edited(start, 2, to: "P: continue; add CBT."))
        try setting.write(Self.edited(start, 0, to: "S: did not sleep."))
        let state = try setting.fixture.storeState()
        let conflicts = try setting.store { try $0.adoptionConflicts(overlapping.id, of: $2, in: $1) }
        try #require(conflicts.count == 1, "\(conflicts)")
        #expect(conflicts[0].base.map(\.text) == ["S: slept badly."])
        #expect(conflicts[0].document.map(\.text) == ["S: did not sleep."] && conflicts[0].documentStart == 0)
        #expect(conflicts[0].proposal.map(\.text) == ["S: slept poorly."] && conflicts[0].proposalStart == 0)
        #expect(try setting.store { try $0.adoptionConflicts(merging.id, of: $2, in: $1) }.isEmpty)
        #expect(try setting.fixture.storeState() == state, "showing the overlaps changes nothing")
    }

    @Test("revertConflicts shows each edit since the adoption that the revert would undo too: the adopted version's, the document's and the earlier blocks; none when the revert merges")
    func revertOverlapIsShown() throws {
        let start = try WritingFixture.paragraphs(["S: slept badly.", "O: calm.", "P: continue."])
        let setting = try Setting(start)
        let branch = try setting.propose(Self.edited(start, 0, to: "S: slept poorly."))
        _ = try setting.store { try $0.adopt(branch.id, of: $2, in: $1) }
        #expect(try setting.store { try $0.revertConflicts(branch.id, of: $2, in: $1) }.isEmpty, "unedited since: the revert merges")
        try setting.write(Self.edited(Self.edited(start, 0, to: "S: slept poorly; woke at 4."), 2, to: "P: continue; add CBT."))
        let state = try setting.fixture.storeState()
        let conflicts = try setting.store { try $0.revertConflicts(branch.id, of: $2, in: $1) }
        try #require(conflicts.count == 1, "\(conflicts)")
        #expect(conflicts[0].base.map(\.text) == ["S: slept poorly."])
        #expect(conflicts[0].document.map(\.text) == ["S: slept poorly; woke at 4."] && conflicts[0].documentStart == 0)
        #expect(conflicts[0].proposal.map(\.text) == ["S: slept badly."] && conflicts[0].proposalStart == 0)
        #expect(try setting.fixture.storeState() == state, "showing the overlaps changes nothing")
        var message = ""
        do {
            _ = try setting.store { try $0.revert(branch.id, of: $2, in: $1) }
        } catch let error as WritingError {
            #expect(error.code == .branchConflict)
            message = error.message
        }
        #expect(message.contains("edited since the adoption") && message.contains("against block 1 (\(start.blocks[0].id.hex)) before the adoption"),
                "\(message)")
        let open = try setting.propose(start)
        #expect(writingCode { try setting.store { try $0.revertConflicts(open.id, of: $2, in: $1) } } == .branchNotOpen, "only an adopted branch is reverted")
    }

    @Test("an overlapping change is refused as branchConflict naming the blocks, and nothing changes (no side dropped)")
    func overlapIsNotDropped() throws {
        let start = try WritingFixture.paragraphs(["S: slept badly.", "O: calm."])
        let setting = try Setting(start)
        let branch = try setting.propose(Self.edited(start, 0, to: "S: slept poorly."))
        try setting.write(Self.edited(start, 0, to: "S: did not sleep."))
        let state = try setting.fixture.storeState()
        var message = ""
        do {
            _ = try setting.store { try $0.adopt(branch.id, of: $2, in: $1) }
        } catch let error as WritingError {
            #expect(error.code == .branchConflict)
            message = error.message
        }
        #expect(message.contains("document block 1 (\(start.blocks[0].id.hex))") && message.contains("proposed block 1"), "\(message)")
        #expect(try setting.fixture.storeState() == state)
        #expect(try setting.store { try $0.branch(branch.id, of: $2, in: $1) }.state == .open)
    }

    @Test("adopt then revert is byte-identical on 50 randomised documents, and the revert is a snapshot of origin revert")
    func adoptThenRevertIsByteIdentical() throws {
        var random = SeededGenerator(seed: 1503)
        let fixture = try WritingFixture()
        let project = try fixture.project("Notes", register: .fiction, kind: .document)
        for round in 0..<50 {
            let document = try fixture.store { try $0.addNode(.scene, titled: "Draft \(round)", in: project.id) }
            let start = try WritingFixture.paragraphs((0..<Int.random(in: 0...6, using: &random)).map { _ in RandomText.text(&random) })
            try fixture.store { try $0.replaceDocumentContent(of: document.id, in: project.id, with: start) }
            let base = try fixture.store { try $0.createSnapshot(of: document.id, in: project.id) }
            // Sometimes the document moves on after the base, in its first block: apart from the
            // proposal's change to the last, as a change next to another is a conflict (git's rule).
            var moved = start
            if round % 2 == 0, moved.blocks.count >= 3 { moved.blocks[0].text = RandomText.edited(moved.blocks[0].text, &random) + "!" }
            try fixture.store { try $0.replaceDocumentContent(of: document.id, in: project.id, with: moved) }
            let before = SnapshotContent.encode(try fixture.store { try $0.documentContent(of: document.id, in: project.id) })
            var proposal = start
            if proposal.blocks.count > 1 { proposal.blocks[proposal.blocks.count - 1].text = RandomText.edited(proposal.blocks.last!.text, &random) + "?" }
            proposal.blocks.append(Block(id: try BlockID.random(), kind: .quote, text: RandomText.text(&random)))
            let branch = try fixture.store {
                try $0.createBranch(of: document.id, in: project.id, base: base.id, content: proposal, kind: .aiSuggestion, provenance: "round \(round)")
            }
            _ = try fixture.store { try $0.adopt(branch.id, of: document.id, in: project.id) }
            #expect(SnapshotContent.encode(try fixture.store { try $0.documentContent(of: document.id, in: project.id) }) != before, "round \(round)")
            let reverted = try fixture.store { try $0.revert(branch.id, of: document.id, in: project.id) }
            let after = SnapshotContent.encode(try fixture.store { try $0.documentContent(of: document.id, in: project.id) })
            #expect(after == before, "round \(round)")
            #expect(reverted.origin == .revert)
            #expect(SnapshotContent.encode(try fixture.store { try $0.snapshotContent(reverted.id, of: document.id, in: project.id) }) == before)
            #expect(try fixture.store { try $0.branch(branch.id, of: document.id, in: project.id) }.state == .reverted)
        }
    }

    @Test("a discarded branch is kept and marked, the document's text untouched, and the decision is a version of its own; it cannot then be adopted, nor an open one reverted")
    func discardKeepsIt() throws {
        let start = try WritingFixture.paragraphs(["One."])
        let setting = try Setting(start)
        let branch = try setting.propose(Self.edited(start, 0, to: "Two."))
        let open = try setting.propose(Self.edited(start, 0, to: "Three."))
        let snapshots = try setting.store { try $0.snapshots(of: $2, in: $1) }
        let version = try setting.store { try $0.discard(branch.id, of: $2, in: $1) }
        let kept = try setting.store { try $0.branch(branch.id, of: $2, in: $1) }
        #expect(kept.state == .discarded && kept.decidedAt != nil)
        #expect(try setting.store { try $0.branchContent(branch.id, of: $2, in: $1) }.blocks.map(\.text) == ["Two."])
        #expect(try setting.current() == SnapshotContent.encode(start))
        // A version even though the text equals the latest snapshot's (the base): the decision has its place in the history.
        #expect(try setting.store { try $0.snapshots(of: $2, in: $1) } == snapshots + [version], "a discard is a version")
        #expect(version.origin == .discard && version.sequence == snapshots.count + 1)
        #expect(SnapshotContent.encode(try setting.store { try $0.snapshotContent(version.id, of: $2, in: $1) }) == SnapshotContent.encode(start))
        #expect(setting.fixture.vault.recording.details(of: "writing.branch-discard").last == ["branch": branch.id.hex, "version": version.id.hex])
        #expect(writingCode { try setting.store { try $0.adopt(branch.id, of: $2, in: $1) } } == .branchNotOpen)
        #expect(writingCode { try setting.store { try $0.discard(branch.id, of: $2, in: $1) } } == .branchNotOpen)
        #expect(writingCode { try setting.store { try $0.revert(open.id, of: $2, in: $1) } } == .branchNotOpen)
    }

    @Test("a branch of another document or project is refused as notInProject, an unknown one as branchNotFound; nothing changes")
    func foreignBranchesAreRefused() throws {
        let start = try WritingFixture.paragraphs(["Mine."])
        let setting = try Setting(start)
        let sibling = try setting.fixture.store { try $0.addNode(.scene, titled: "Other", in: setting.project.id) }
        let siblingBase = try setting.fixture.store { try $0.createSnapshot(of: sibling.id, in: setting.project.id) }
        let siblings = try setting.fixture.store {
            try $0.createBranch(of: sibling.id, in: setting.project.id, base: siblingBase.id, content: try WritingFixture.paragraphs(["New."]),
                                kind: .manual, provenance: "me")
        }
        let other = try setting.fixture.project("Elsewhere", register: .fiction, kind: .document)
        let far = try setting.fixture.store { try $0.addNode(.scene, titled: "Far", in: other.id) }
        let farBase = try setting.fixture.store { try $0.createSnapshot(of: far.id, in: other.id) }
        let foreign = try setting.fixture.store {
            try $0.createBranch(of: far.id, in: other.id, base: farBase.id, content: DocumentContent(), kind: .manual, provenance: "me")
        }
        let state = try setting.fixture.storeState()
        for id in [siblings.id, foreign.id] {
            #expect(writingCode { try setting.store { try $0.adopt(id, of: $2, in: $1) } } == .notInProject)
            #expect(writingCode { try setting.store { try $0.discard(id, of: $2, in: $1) } } == .notInProject)
            #expect(writingCode { try setting.store { try $0.branchContent(id, of: $2, in: $1) } } == .notInProject)
        }
        #expect(writingCode { try setting.fixture.store { try $0.branch(foreign.id, of: far.id, in: setting.project.id) } } == .notInProject)
        #expect(writingCode { try setting.store { try $0.adopt(try BranchID.random(), of: $2, in: $1) } } == .branchNotFound)
        // A base of another document, and a block of another document in the proposal.
        #expect(writingCode { try setting.store { try $0.createBranch(of: $2, in: $1, base: siblingBase.id, content: start, kind: .manual, provenance: "me") } } == .notInProject)
        let theirBlocks = try setting.fixture.store { try $0.documentContent(of: setting.document.id, in: setting.project.id) }
        #expect(writingCode { try setting.fixture.store { try $0.createBranch(of: sibling.id, in: setting.project.id, base: siblingBase.id, content: theirBlocks, kind: .manual, provenance: "me") } } == .notInProject)
        #expect(try setting.fixture.storeState() == state)
    }

    /// The document's own blocks are read in one query, the others one by one (a sync conflict's
    /// proposal is its whole document): one block of another document among them is still refused.
    @Test("a proposal of the document's own blocks with one block of another document among them is refused as notInProject, naming the block; nothing changes")
    func oneForeignBlockAmongTheOwnIsRefused() throws {
        let setting = try Setting(try WritingFixture.paragraphs(["One.", "Two.", "Three."]))
        let sibling = try setting.fixture.store { try $0.addNode(.scene, titled: "Other", in: setting.project.id) }
        let theirs = try WritingFixture.paragraphs(["Theirs."])
        try setting.fixture.store { try $0.replaceDocumentContent(of: sibling.id, in: setting.project.id, with: theirs) }
        let own = try setting.store { try $0.documentContent(of: $2, in: $1) }
        let state = try setting.fixture.storeState()
        let mixed = DocumentContent(blocks: [own.blocks[0], theirs.blocks[0]] + own.blocks[1...])
        let error = writingError { try setting.store { try $0.createBranch(of: $2, in: $1, base: setting.base.id, content: mixed, kind: .manual, provenance: "me") } }
        #expect(error?.code == .notInProject)
        #expect(error?.message == "block \(theirs.blocks[0].id) belongs to another document")
        #expect(try setting.fixture.storeState() == state)
        // The document's own blocks with new ones make a branch, as ever.
        let proposal = DocumentContent(blocks: own.blocks + (try WritingFixture.paragraphs(["Four."])).blocks)
        let branch = try setting.propose(proposal)
        #expect(try setting.store { try $0.branchContent(branch.id, of: $2, in: $1) } == proposal)
    }

    @Test("create, adopt, discard and revert each leave their audit entry, after the snapshots they take")
    func auditEntries() throws {
        let start = try WritingFixture.paragraphs(["One."])
        let setting = try Setting(start)
        let before = setting.fixture.vault.recording.actions.count
        let branch = try setting.propose(Self.edited(start, 0, to: "Two."))
        let other = try setting.propose(Self.edited(start, 0, to: "Three."))
        let adopted = try setting.store { try $0.adopt(branch.id, of: $2, in: $1) }
        let reverted = try setting.store { try $0.revert(branch.id, of: $2, in: $1) }
        try setting.store { try $0.discard(other.id, of: $2, in: $1) }
        let actions = Array(setting.fixture.vault.recording.actions[before...]).filter { $0.hasPrefix("writing.branch") }
        #expect(actions == ["writing.branch-create", "writing.branch-create", "writing.branch-adopt", "writing.branch-revert", "writing.branch-discard"])
        let recording = setting.fixture.vault.recording
        #expect(recording.details(of: "writing.branch-create").first?["kind"] == "ai-suggestion")
        #expect(recording.details(of: "writing.branch-adopt").last?["version"] == adopted.id.hex)
        #expect(recording.details(of: "writing.branch-revert").last?["version"] == reverted.id.hex)
        #expect(recording.details(of: "writing.branch-discard").last?["branch"] == other.id.hex)
    }

    @Test("a privileged project's branches are made, listed, adopted and reverted only in a session of its compartment")
    func privilegedNeedsASession() throws {
        let start = try WritingFixture.paragraphs(["S: slept badly."])
        var held: PrivilegedProcessingSession?
        let setting = try Setting(start, register: .healthcare) { fixture, project in
            held = try fixture.session(of: project)
            return .session(held!)
        }
        let session = try #require(held)
        defer { try? session.end() }
        #expect(writingCode { try setting.propose(Self.edited(start, 0, to: "S: slept well.")) } == .privilegedSessionRequired)
        let branch = try setting.propose(Self.edited(start, 0, to: "S: slept well."), .session(session))
        #expect(writingCode { try setting.store { try $0.branches(of: $2, in: $1) } } == .privilegedSessionRequired)
        #expect(writingCode { try setting.store { try $0.adopt(branch.id, of: $2, in: $1) } } == .privilegedSessionRequired)
        _ = try setting.store(.session(session)) { try $0.adopt(branch.id, of: $2, in: $1) }
        #expect(writingCode { try setting.store { try $0.revert(branch.id, of: $2, in: $1) } } == .privilegedSessionRequired)
        _ = try setting.store(.session(session)) { try $0.revert(branch.id, of: $2, in: $1) }
        #expect(try setting.current(.session(session)) == SnapshotContent.encode(start))
    }

    @Test("removing the document removes its branches and their sealed records")
    func removalRemovesBranches() throws {
        let start = try WritingFixture.paragraphs(["One."])
        let setting = try Setting(start)
        _ = try setting.propose(Self.edited(start, 0, to: "Two."))
        try setting.store { try $0.removeNode($2, in: $1) }
        #expect(try setting.fixture.storeState().filter { $0.contains("writing_branches") } == [])
    }
}

extension RecordingJournal {
    /// The details of each recorded `action`, in order, by name.
    fileprivate func details(of action: String) -> [[String: String]] {
        events.withLock { events in
            events.filter { $0.action.name == action }.map { Dictionary($0.details.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 }) }
        }
    }
}
