import CryptoVault
import Testing
import TestSupport
@testable import Writing

/// Issue 15's hostile inputs: each gets a clear WritingError for its reason, and the store (the
/// writing tables and the sealed records) is byte for byte what it was.
@Suite struct HostileWritingInputTests {
    /// A project with a folder, a document in it with two blocks, and a second project.
    final class Setting {
        let fixture: WritingFixture
        let project: WritingProject
        let other: WritingProject
        let folder: BinderNode
        let inner: BinderNode
        let document: BinderNode
        let foreign: BinderNode

        init() throws {
            fixture = try WritingFixture()
            project = try fixture.project()
            other = try fixture.project("Other")
            (folder, inner, document, foreign) = try fixture.store { [project, other] store in
                let folder = try store.addNode(.chapter, titled: "One", in: project.id)
                let inner = try store.addNode(.chapter, titled: "Inner", in: project.id, under: folder.id)
                let document = try store.addNode(.scene, titled: "Storm", in: project.id, under: folder.id)
                try store.replaceDocumentContent(of: document.id, in: project.id, with: try WritingFixture.paragraphs(["a", "b"]))
                let foreign = try store.addNode(.scene, titled: "Elsewhere", in: other.id)
                try store.replaceDocumentContent(of: foreign.id, in: other.id, with: try WritingFixture.paragraphs(["x"]))
                return (folder, inner, document, foreign)
            }
        }

        /// Runs `body`, expects it refused with `code`, the store unchanged and nothing recorded in
        /// the vault's journal (a refused transaction commits no audit entry either).
        func expectRefused(_ code: WritingErrorCode, sourceLocation: SourceLocation = #_sourceLocation,
                           _ body: (WritingStore) throws -> Void) throws {
            let before = try fixture.storeState()
            let recorded = fixture.vault.recording.actions.count
            #expect(writingCode { try fixture.store(.vault, body) } == code, sourceLocation: sourceLocation)
            #expect(try fixture.storeState() == before, "the store changed", sourceLocation: sourceLocation)
            #expect(fixture.vault.recording.actions.count == recorded, "a refused call recorded \(fixture.vault.recording.actions.dropFirst(recorded))",
                    sourceLocation: sourceLocation)
        }
    }

    @Test("a 100 MB document is refused as documentTooLarge, as text and as blocks, before anything is read")
    func hundredMegabytes() throws {
        let setting = try Setting()
        let big = String(repeating: "word ", count: 20_000_000)
        #expect(writingCode { try PlainText.parse(Array(big.utf8)) } == .documentTooLarge)
        let blocks = DocumentContent(blocks: try (0..<100).map { _ in
            Block(id: try BlockID.random(), kind: .paragraph, text: String(repeating: "x", count: 1_000_000))
        })
        try setting.expectRefused(.documentTooLarge) { try $0.replaceDocumentContent(of: setting.document.id, in: setting.project.id, with: blocks) }
        let oneHugeBlock = DocumentContent(blocks: [Block(id: try BlockID.random(), kind: .paragraph, text: String(repeating: "y", count: 2_000_000))])
        try setting.expectRefused(.blockTooLarge) {
            try $0.replaceDocumentContent(of: setting.document.id, in: setting.project.id, with: oneHugeBlock)
        }
    }

    @Test("invalid UTF-8 and control characters are refused as invalidText")
    func invalidText() {
        for bytes: [UInt8] in [[0x61, 0xFF, 0x62], [0xC3], [0xED, 0xA0, 0x80], [0x61, 0x00, 0x62], [0x1B, 0x5B, 0x32, 0x4A]] {
            #expect(writingCode { try PlainText.parse(bytes) } == .invalidText, "\(bytes)")
        }
    }

    @Test("nesting past the limit is refused as nestingTooDeep, by an add and by a move")
    func deepNesting() throws {
        let setting = try Setting()
        var parent = setting.folder.id
        for level in 2...WritingLimits.maximumNesting {
            parent = try setting.fixture.store { try $0.addNode(.chapter, titled: "Level \(level)", in: setting.project.id, under: parent).id }
        }
        try setting.expectRefused(.nestingTooDeep) { _ = try $0.addNode(.chapter, titled: "Too deep", in: setting.project.id, under: parent) }
        // A folder holding a folder (two levels) does not fit under the deepest one.
        let top = try setting.fixture.store { try $0.addNode(.chapter, titled: "Top", in: setting.project.id) }
        let nested = try setting.fixture.store { try $0.addNode(.chapter, titled: "Under top", in: setting.project.id, under: top.id) }
        try setting.expectRefused(.nestingTooDeep) { try $0.moveNode(top.id, in: setting.project.id, under: parent) }
        try setting.expectRefused(.nestingTooDeep) { try $0.moveNode(nested.id, in: setting.project.id, under: parent) }
    }

    @Test("a folder moved under itself or its descendant is refused as moveIntoItself")
    func moveUnderItself() throws {
        let setting = try Setting()
        try setting.expectRefused(.moveIntoItself) { try $0.moveNode(setting.folder.id, in: setting.project.id, under: setting.folder.id) }
        try setting.expectRefused(.moveIntoItself) { try $0.moveNode(setting.folder.id, in: setting.project.id, under: setting.inner.id) }
        try setting.expectRefused(.moveIntoItself) {
            try $0.moveNode(setting.document.id, in: setting.project.id, under: setting.folder.id, before: setting.document.id)
        }
        try setting.expectRefused(.wrongNodeKind) { try $0.moveNode(setting.inner.id, in: setting.project.id, under: setting.document.id) }
    }

    @Test("an id from another project is refused as notInProject, wherever it is given")
    func idFromAnotherProject() throws {
        let setting = try Setting()
        let (project, foreign) = (setting.project.id, setting.foreign.id)
        try setting.expectRefused(.notInProject) { _ = try $0.documentContent(of: foreign, in: project) }
        try setting.expectRefused(.notInProject) { try $0.moveNode(foreign, in: project, under: nil) }
        try setting.expectRefused(.notInProject) { try $0.moveNode(setting.document.id, in: project, under: nil, before: foreign) }
        try setting.expectRefused(.notInProject) { try $0.moveNode(setting.inner.id, in: setting.other.id, under: nil) }
        try setting.expectRefused(.notInProject) { _ = try $0.addNode(.scene, titled: "x", in: project, under: foreign) }
        try setting.expectRefused(.notInProject) { try $0.removeNode(foreign, in: project) }
        try setting.expectRefused(.notInProject) { try $0.renameNode(foreign, in: project, to: "x") }
        // A block of the other project's document, given as one of this document's blocks.
        let stolen = try setting.fixture.store { try $0.documentContent(of: foreign, in: setting.other.id) }
        try setting.expectRefused(.notInProject) { try $0.replaceDocumentContent(of: setting.document.id, in: project, with: stolen) }
        try setting.expectRefused(.projectNotFound) { _ = try $0.nodes(in: try ProjectID.random()) }
    }

    @Test("a snapshot or branch of another document or project is refused as notInProject by every call that takes one")
    func versionsFromAnotherDocument() throws {
        let setting = try Setting()
        let (project, document, foreign) = (setting.project.id, setting.document.id, setting.foreign.id)
        let (mine, theirs) = try setting.fixture.store { store in
            (try store.createSnapshot(of: document, in: project), try store.createSnapshot(of: foreign, in: setting.other.id))
        }
        let sibling = try setting.fixture.store { store in
            let sibling = try store.addNode(.scene, titled: "Sibling", in: project)
            try store.replaceDocumentContent(of: sibling.id, in: project, with: try WritingFixture.paragraphs(["s"]))
            return (node: sibling, snapshot: try store.createSnapshot(of: sibling.id, in: project))
        }
        let proposal = try WritingFixture.paragraphs(["proposed"])
        let foreignBranch = try setting.fixture.store {
            try $0.createBranch(of: foreign, in: setting.other.id, base: theirs.id, content: proposal, kind: .manual, provenance: "test")
        }
        let siblingBranch = try setting.fixture.store {
            try $0.createBranch(of: sibling.node.id, in: project, base: sibling.snapshot.id, content: proposal, kind: .manual, provenance: "test")
        }
        for snapshot in [theirs.id, sibling.snapshot.id] {
            try setting.expectRefused(.notInProject) { _ = try $0.snapshotContent(snapshot, of: document, in: project) }
            try setting.expectRefused(.notInProject) { try $0.restore(document, in: project, to: snapshot) }
            try setting.expectRefused(.notInProject) {
                try $0.createBranch(of: document, in: project, base: snapshot, content: proposal, kind: .manual, provenance: "test")
            }
        }
        for branch in [foreignBranch.id, siblingBranch.id] {
            try setting.expectRefused(.notInProject) { _ = try $0.branch(branch, of: document, in: project) }
            try setting.expectRefused(.notInProject) { _ = try $0.branchContent(branch, of: document, in: project) }
            try setting.expectRefused(.notInProject) { try $0.adopt(branch, of: document, in: project) }
            try setting.expectRefused(.notInProject) { try $0.discard(branch, of: document, in: project) }
            try setting.expectRefused(.notInProject) { try $0.revert(branch, of: document, in: project) }
        }
        // A proposal that takes a block of another document (here the sibling's) as one of its own.
        let stolen = try setting.fixture.store { try $0.documentContent(of: sibling.node.id, in: project) }
        try setting.expectRefused(.notInProject) {
            try $0.createBranch(of: document, in: project, base: mine.id, content: stolen, kind: .manual, provenance: "test")
        }
        try setting.expectRefused(.snapshotNotFound) { _ = try $0.snapshotContent(try SnapshotID.random(), of: document, in: project) }
        try setting.expectRefused(.branchNotFound) { try $0.adopt(try BranchID.random(), of: document, in: project) }
    }

    @Test("names and titles: empty, too long, a control character, an edge space, all refused as invalidName")
    func badNames() throws {
        let setting = try Setting()
        for title in ["", String(repeating: "a", count: 513), "a\u{7}b", " lead", "trail "] {
            try setting.expectRefused(.invalidName) { _ = try $0.addNode(.scene, titled: title, in: setting.project.id) }
        }
        #expect(writingCode { try setting.fixture.unlocked.createWritingProject(named: "", register: .general, kind: .document) } == .invalidName)
    }

    @Test("a damaged row (a parent loop written into the file) is refused as damagedRecord, never a hang")
    func parentLoop() throws {
        let setting = try Setting()
        try setting.fixture.vault.tamper("UPDATE writing_nodes SET parent_id = X'\(setting.inner.id.hex)' WHERE id = X'\(setting.folder.id.hex)'")
        #expect(writingCode { try setting.fixture.store { try $0.nodes(in: setting.project.id) } } == .damagedRecord)
    }
}
