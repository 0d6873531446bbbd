import CryptoVault
import Foundation
import Testing
import TestSupport
@testable import Writing

/// The snapshot store (SECURITY.md §15.2): versions stored as sealed keyframes and deltas, read back
/// byte for byte across keyframe boundaries, restored as a recorded change, and refused when they
/// belong elsewhere or their bytes were touched.
@Suite struct SnapshotStoreTests {
    /// A project with one document, and a way to write a version of it.
    struct Setting {
        let fixture: WritingFixture
        let project: WritingProject
        let document: BinderNode

        init(register: Register = .fiction) throws {
            let fixture = try WritingFixture()
            let project = try fixture.project("Notes", register: register, kind: .document)
            document = try fixture.store { try $0.addNode(.scene, titled: "Draft", in: project.id) }
            self.fixture = fixture
            self.project = project
        }

        func write(_ content: DocumentContent, _ access: RecordAccess = .vault) throws {
            try fixture.store(access) { try $0.replaceDocumentContent(of: document.id, in: project.id, with: content) }
        }

        func snapshot(_ title: String? = nil, _ access: RecordAccess = .vault) throws -> Snapshot {
            try fixture.store(access) { try $0.createSnapshot(of: document.id, in: project.id, titled: title) }
        }

        func content(_ id: SnapshotID, _ access: RecordAccess = .vault) throws -> DocumentContent {
            try fixture.store(access) { try $0.snapshotContent(id, of: document.id, in: project.id) }
        }
    }

    /// Version `index` of a document that grows, edits and loses blocks as it goes; ids kept where the block stays.
    static func evolve(_ content: DocumentContent, _ index: Int, _ random: inout SeededGenerator) throws -> DocumentContent {
        var blocks = content.blocks
        switch index % 5 {
        case 0 where !blocks.isEmpty:
            blocks.remove(at: Int.random(in: 0..<blocks.count, using: &random))
        case 1 where !blocks.isEmpty:
            let at = Int.random(in: 0..<blocks.count, using: &random)
            blocks[at].text += " and then \(index) more words, é."
        default:
            blocks.insert(Block(id: try BlockID.random(), kind: index % 7 == 0 ? .heading(level: 2) : .paragraph, text: "Version \(index): the tide."),
                          at: Int.random(in: 0...blocks.count, using: &random))
        }
        return DocumentContent(blocks: blocks)
    }

    @Test("70 versions read back byte for byte; one keyframe at 1, deltas after it")
    func roundTripAcrossKeyframes() throws {
        let setting = try Setting()
        var random = SeededGenerator(seed: 15)
        var content = DocumentContent()
        var versions: [(Snapshot, DocumentContent)] = []
        for index in 0..<70 {
            content = try Self.evolve(content, index, &random)
            try setting.write(content)
            versions.append((try setting.snapshot(index % 10 == 0 ? "Version \(index)" : nil), content))
        }
        #expect(versions.map(\.0.sequence) == Array(1...70))
        #expect(versions.filter(\.0.isKeyframe).map(\.0.sequence) == [1])
        for (snapshot, expected) in versions {
            let read = try setting.content(snapshot.id)
            #expect(SnapshotContent.encode(read) == SnapshotContent.encode(expected), "version \(snapshot.sequence)")
            #expect(read == expected)
        }
        let listed = try setting.fixture.store { try $0.snapshots(of: setting.document.id, in: setting.project.id) }
        #expect(listed == versions.map(\.0))
        #expect(listed.filter { $0.origin == .titled }.map(\.title) == (0..<7).map { "Version \($0 * 10)" })
        let device = try setting.fixture.unlocked.vault.auditDeviceID()
        #expect(listed.allSatisfy { $0.deviceID == device }, "each version is stamped with the vault's audit device id")
    }

    @Test("a chain ends at 1024 snapshots, or sooner when a restore would rebuild more than 64 MiB along it")
    func chainLength() {
        #expect(WritingStore.startsChain(1, size: 10, lastKeyframe: nil))
        #expect(!WritingStore.startsChain(2, size: 100_000, lastKeyframe: 1))
        #expect(!WritingStore.startsChain(521, size: 104_852, lastKeyframe: 1), "the automerge paper's 520 versions are one chain")
        #expect(!WritingStore.startsChain(672, size: 100_000, lastKeyframe: 1), "671 deltas of a 100 KB document")
        #expect(WritingStore.startsChain(673, size: 100_000, lastKeyframe: 1))
        #expect(!WritingStore.startsChain(1024, size: 10, lastKeyframe: 1), "1023 deltas of a short note")
        #expect(WritingStore.startsChain(1025, size: 10, lastKeyframe: 1))
        #expect(WritingStore.startsChain(2049, size: 10, lastKeyframe: 1025))
        #expect(!WritingStore.startsChain(65, size: 1 << 20, lastKeyframe: 1), "64 deltas of 1 MiB rebuild 64 MiB")
        #expect(WritingStore.startsChain(66, size: 1 << 20, lastKeyframe: 1))
        #expect(!WritingStore.startsChain(3, size: 0, lastKeyframe: 1), "an empty document")
    }

    @Test("a restore makes the document byte-identical to the snapshot, is recorded, and is a new version itself")
    func restoreIsByteIdentical() throws {
        let setting = try Setting()
        let first = try WritingFixture.paragraphs(["The client said no.", "Twice."])
        try setting.write(first)
        let kept = try setting.snapshot("Before the call")
        var second = first
        second.blocks[0].text = "The client said yes."
        second.blocks.remove(at: 1)
        second.blocks.append(Block(id: try BlockID.random(), kind: .quote, text: "Fine."))
        try setting.write(second)
        let later = try setting.snapshot()
        let before = setting.fixture.vault.recording.actions.count
        let restored = try setting.fixture.store { try $0.restore(setting.document.id, in: setting.project.id, to: kept.id) }
        let now = try setting.fixture.store { try $0.documentContent(of: setting.document.id, in: setting.project.id) }
        #expect(SnapshotContent.encode(now) == SnapshotContent.encode(first))
        #expect(restored.origin == .restore && restored.sequence == later.sequence + 1 && restored.title == nil)
        #expect(try setting.content(restored.id) == first)
        let actions = Array(setting.fixture.vault.recording.actions[before...])
        #expect(actions.contains("writing.content-write") && actions.contains("writing.snapshot-create") && actions.contains("writing.snapshot-restore"))
        #expect(actions.firstIndex(of: "writing.snapshot-restore")! > actions.firstIndex(of: "writing.snapshot-create")!)
    }

    @Test("an automatic snapshot of unchanged content is the latest one, not a new version; a titled one is new")
    func unchangedIsNotStoredTwice() throws {
        let setting = try Setting()
        try setting.write(try WritingFixture.paragraphs(["One."]))
        let first = try setting.snapshot("Named")
        let again = try setting.snapshot()
        #expect(again == first)
        let titled = try setting.snapshot("Named again")
        #expect(titled.sequence == 2 && titled.title == "Named again")
        #expect(try setting.content(titled.id) == (try setting.content(first.id)))
    }

    @Test("a snapshot id of another document or project is refused as notInProject, an unknown one as snapshotNotFound; nothing changes")
    func foreignSnapshotsAreRefused() throws {
        let setting = try Setting()
        try setting.write(try WritingFixture.paragraphs(["Mine."]))
        _ = try setting.snapshot()
        let sibling = try setting.fixture.store { try $0.addNode(.scene, titled: "Other", in: setting.project.id) }
        try setting.fixture.store { try $0.replaceDocumentContent(of: sibling.id, in: setting.project.id, with: try WritingFixture.paragraphs(["Theirs."])) }
        let siblings = try setting.fixture.store { try $0.createSnapshot(of: sibling.id, in: setting.project.id) }
        let other = try setting.fixture.project("Elsewhere", register: .fiction, kind: .document)
        let foreignDocument = try setting.fixture.store { try $0.addNode(.scene, titled: "Far", in: other.id) }
        let foreign = try setting.fixture.store { try $0.createSnapshot(of: foreignDocument.id, in: other.id) }
        let state = try setting.fixture.storeState()
        let project = setting.project.id, document = setting.document.id
        #expect(writingCode { try setting.content(siblings.id) } == .notInProject)
        #expect(writingCode { try setting.content(foreign.id) } == .notInProject)
        #expect(writingCode { try setting.fixture.store { try $0.restore(document, in: project, to: siblings.id) } } == .notInProject)
        #expect(writingCode { try setting.fixture.store { try $0.restore(document, in: project, to: foreign.id) } } == .notInProject)
        #expect(writingCode { try setting.fixture.store { try $0.restore(document, in: project, to: try SnapshotID.random()) } } == .snapshotNotFound)
        // The other project's snapshot named with its own document, but through this project.
        #expect(writingCode { try setting.fixture.store { try $0.snapshotContent(foreign.id, of: foreignDocument.id, in: project) } } == .notInProject)
        #expect(try setting.fixture.storeState() == state)
    }

    @Test("a flipped byte in a stored snapshot record fails to open (corruptRecord), and a row moved in its chain is damage")
    func tamperedRecordsAreRefused() throws {
        let setting = try Setting()
        try setting.write(try WritingFixture.paragraphs(["Alpha."]))
        let first = try setting.snapshot()
        try setting.write(try WritingFixture.paragraphs(["Alpha.", "Beta."]))
        let second = try setting.snapshot()
        let database = try Database(path: setting.fixture.vault.vault.databasePath, create: false)
        let where_ = "table_name = 'writing_snapshots' AND record_id = ? AND field = 'part-0'"
        let sealed = try database.queryOne("SELECT sealed FROM sealed_records WHERE \(where_)", [.blob(second.id.bytes)])!.blob("sealed")
        var flipped = sealed
        flipped[flipped.count / 2] ^= 0x01
        try database.query("UPDATE sealed_records SET sealed = ? WHERE \(where_)", [.blob(flipped), .blob(second.id.bytes)])
        #expect(errorCode { try setting.content(second.id) } == .corruptRecord)
        #expect(try setting.content(first.id).blocks.map(\.text) == ["Alpha."])
        try database.query("UPDATE sealed_records SET sealed = ? WHERE \(where_)", [.blob(sealed), .blob(second.id.bytes)])
        #expect(try setting.content(second.id).blocks.map(\.text) == ["Alpha.", "Beta."])
        // Rows swapped in the chain: each record still opens, but names another place than its row.
        try setting.fixture.vault.tamper("""
            UPDATE writing_snapshots SET sequence = 3 WHERE id = X'\(first.id.hex)';
            UPDATE writing_snapshots SET sequence = 1 WHERE id = X'\(second.id.hex)';
            UPDATE writing_snapshots SET sequence = 2 WHERE id = X'\(first.id.hex)';
            UPDATE writing_snapshots SET form = 'keyframe' WHERE id = X'\(second.id.hex)';
            UPDATE writing_snapshots SET form = 'delta' WHERE id = X'\(first.id.hex)';
            """)
        #expect(writingCode { try setting.content(second.id) } == .damagedRecord)
        #expect(writingCode { try setting.content(first.id) } == .damagedRecord)
    }

    @Test("a privileged project's snapshots are taken, listed, read and restored only in a session of its compartment")
    func privilegedSnapshotsNeedASession() throws {
        let setting = try Setting(register: .healthcare)
        let session = try setting.fixture.session(of: setting.project)
        defer { try? session.end() }
        try setting.write(try WritingFixture.paragraphs(["S: slept badly"]), .session(session))
        #expect(writingCode { try setting.snapshot() } == .privilegedSessionRequired)
        let snapshot = try setting.snapshot("Intake", .session(session))
        let project = setting.project.id, document = setting.document.id
        #expect(writingCode { try setting.fixture.store { try $0.snapshots(of: document, in: project) } } == .privilegedSessionRequired)
        #expect(writingCode { try setting.content(snapshot.id) } == .privilegedSessionRequired)
        #expect(writingCode { try setting.fixture.store { try $0.restore(document, in: project, to: snapshot.id) } } == .privilegedSessionRequired)
        #expect(try setting.fixture.store(.session(session)) { try $0.snapshots(of: document, in: project) }.map(\.title) == ["Intake"])
        #expect(try setting.content(snapshot.id, .session(session)).blocks.map(\.text) == ["S: slept badly"])
    }

    @Test("a document over 1 MiB packed is stored in several sealed parts and read back whole; removing the document removes its snapshots")
    func largeDocumentsAndRemoval() throws {
        let setting = try Setting()
        // Random letters, which DEFLATE packs to about 6 bits each: 2.2 MB of them stay over 1 MiB packed.
        var random = SeededGenerator(seed: 181)
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")
        let big = try WritingFixture.paragraphs((0..<4).map { _ in String((0..<540_000).map { _ in letters[Int(random.next() % 64)] }) })
        try setting.write(big)
        let snapshot = try setting.snapshot()
        #expect(try setting.content(snapshot.id) == big)
        let parts = try setting.fixture.storeState().filter { $0.contains("'writing_snapshots'") }
        #expect(parts.count == 2)
        try setting.fixture.store { try $0.removeNode(setting.document.id, in: setting.project.id) }
        #expect(try setting.fixture.storeState().filter { $0.contains("writing_snapshots") } == [])
    }
}
