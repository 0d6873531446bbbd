import CryptoVault
import Testing
import TestSupport
@testable import Writing

/// `replaceDocumentContentAndSnapshot` (SECURITY.md §15.2): the same versions as a write followed by
/// `createSnapshot`, opening only the stored blocks the write changes or drops (the others are told
/// unchanged by their records' digests, SECURITY.md §4.8) and, when the write replaced the latest
/// version, one record of the chain instead of the chain.
@Suite struct SnapshotWithWriteTests {
    typealias Setting = SnapshotStoreTests.Setting

    func writeAndSnapshot(_ setting: Setting, _ content: DocumentContent) throws -> Snapshot {
        try setting.fixture.store { try $0.replaceDocumentContentAndSnapshot(of: setting.document.id, in: setting.project.id, with: content).snapshot }
    }

    /// The records named by the `record.open` entries recorded since `before` events.
    func opened(_ setting: Setting, since before: Int) -> [String] {
        setting.fixture.vault.recording.events.withLock { events in
            events[before...].filter { $0.action == .recordOpen }.flatMap { event in
                event.details.first { $0.name == "records" }?.value.split(separator: "\n").map(String.init) ?? []
            }
        }
    }

    @Test("40 versions read back byte for byte, a keyframe at 1 only, each write opening only the blocks it changes or drops and one snapshot record")
    func versionsMatchAndReadsAreFew() throws {
        let setting = try Setting()
        var random = SeededGenerator(seed: 16)
        var content = DocumentContent()
        var versions: [(Snapshot, DocumentContent)] = []
        for index in 0..<40 {
            let previous = content
            content = try SnapshotStoreTests.evolve(content, index, &random)
            let incoming = Dictionary(uniqueKeysWithValues: content.blocks.map { ($0.id, $0) })
            let changedOrDropped = previous.blocks.filter { incoming[$0.id] != $0 }.count
            let before = setting.fixture.vault.recording.events.withLock { $0.count }
            versions.append((try writeAndSnapshot(setting, content), content))
            let opened = opened(setting, since: before)
            #expect(opened.filter { $0.contains("/writing_blocks/") }.count == changedOrDropped, "version \(index + 1)")
            #expect(opened.filter { $0.contains("/writing_snapshots/") }.count == (index == 0 ? 0 : 1), "version \(index + 1)")
        }
        #expect(versions.map(\.0.sequence) == Array(1...40))
        #expect(versions.filter(\.0.isKeyframe).map(\.0.sequence) == [1])
        for (snapshot, expected) in versions {
            #expect(SnapshotContent.encode(try setting.content(snapshot.id)) == SnapshotContent.encode(expected), "version \(snapshot.sequence)")
        }
    }

    @Test("blocks sealed before digests were kept (no digest) are opened to compare, and the write and its snapshot are right")
    func blocksWithoutDigestsAreOpened() throws {
        let setting = try Setting()
        let first = try WritingFixture.paragraphs(["One, as it was.", "Two, as it was.", "Three, as it was."])
        _ = try writeAndSnapshot(setting, first)
        try setting.fixture.vault.tamper("UPDATE sealed_records SET digest = NULL WHERE table_name = 'writing_blocks'")
        var second = first
        second.blocks[1].text = "Two, edited."
        let before = setting.fixture.vault.recording.events.withLock { $0.count }
        let snapshot = try writeAndSnapshot(setting, second)
        #expect(opened(setting, since: before).filter { $0.contains("/writing_blocks/") }.count == 3)
        #expect(SnapshotContent.encode(try setting.content(snapshot.id)) == SnapshotContent.encode(second))
        // Resealed blocks have digests again; the unchanged ones are still opened until they are rewritten.
        var third = second
        third.blocks[0].text = "One, edited."
        let next = setting.fixture.vault.recording.events.withLock { $0.count }
        _ = try writeAndSnapshot(setting, third)
        #expect(opened(setting, since: next).filter { $0.contains("/writing_blocks/") }.count == 2)
        #expect(try setting.fixture.store { try $0.documentContent(of: setting.document.id, in: setting.project.id) } == third)
    }

    @Test("a privileged project's write without a session of its compartment is refused before anything is compared or changed")
    func privilegedWriteNeedsASession() throws {
        let setting = try Setting(register: .healthcare)
        let session = try setting.fixture.session(of: setting.project)
        let first = try WritingFixture.paragraphs(["Subjective: sleeping better.", "Plan: review in two weeks."])
        try setting.write(first, .session(session))
        let state = try setting.fixture.storeState()
        // The same content: every block's digest would say unchanged, but the question is a read.
        #expect(writingCode { try setting.write(first) } == .privilegedSessionRequired)
        #expect(try setting.fixture.storeState() == state)
        try setting.write(first, .session(session))
        try session.end()
    }

    @Test("a write over content the latest snapshot does not hold reads the chain and stores the right delta")
    func contentWrittenSinceTheLatestReadsTheChain() throws {
        let setting = try Setting()
        // The blocks keep their ids from version to version, so each delta is small.
        let first = try WritingFixture.paragraphs(["The first paragraph, as it was written on Monday.", "The second one, as it was."])
        var between = first, third = first
        between.blocks[1].text = "The second one, changed on Tuesday."
        third.blocks[1].text = between.blocks[1].text
        third.blocks[0].text = "The first paragraph, rewritten on Wednesday."
        _ = try writeAndSnapshot(setting, first)
        try setting.write(between)
        let before = setting.fixture.vault.recording.events.withLock { $0.count }
        let snapshot = try writeAndSnapshot(setting, third)
        #expect(snapshot.sequence == 2 && !snapshot.isKeyframe)
        // The latest's record, opened to compare digests, then the chain (here the same keyframe) to read it.
        #expect(opened(setting, since: before).filter { $0.contains("/writing_snapshots/") }.count == 2)
        #expect(try setting.content(snapshot.id) == third)
    }

    @Test("a write with its snapshot is one writing.content-write carrying the snapshot's details, no writing.snapshot-create; a write equal to the latest version is a content write alone")
    func oneEntryForTheWriteAndItsSnapshot() throws {
        let setting = try Setting()
        let entries = { (before: Int) in
            setting.fixture.vault.recording.events.withLock { Array($0[before...]) }.filter { $0.action.name.hasPrefix("writing.") }
        }
        _ = try writeAndSnapshot(setting, try WritingFixture.paragraphs(["One."]))
        var before = setting.fixture.vault.recording.events.withLock { $0.count }
        let second = try writeAndSnapshot(setting, try WritingFixture.paragraphs(["One.", "Two."]))
        let written = entries(before)
        #expect(written.map(\.action.name) == ["writing.content-write"])
        #expect(written.first?.details.map(\.name) == ["sealed", "kept", "removed", "snapshot", "origin", "form"])
        #expect(written.first?.details.first { $0.name == "snapshot" }?.value == second.id.hex)
        // Back to the first version's text by hand: a content write, and a version (the latest differs).
        try setting.write(try WritingFixture.paragraphs(["One.", "Two.", "Three."]))
        before = setting.fixture.vault.recording.events.withLock { $0.count }
        let same = try setting.content(second.id)
        let again = try writeAndSnapshot(setting, same)
        #expect(again == second, "unchanged since the latest version: no new one")
        #expect(entries(before).map(\.action.name) == ["writing.content-write"])
        #expect(entries(before).first?.details.map(\.name) == ["sealed", "kept", "removed"])
    }

    @Test("content equal to the latest snapshot's takes no new version and returns the latest, with its title")
    func unchangedTakesNone() throws {
        let setting = try Setting()
        try setting.write(try WritingFixture.paragraphs(["Same."]))
        let titled = try setting.snapshot("Signed")
        let again = try writeAndSnapshot(setting, try setting.content(titled.id))
        #expect(again == titled && again.title == "Signed")
        #expect(try setting.fixture.store { try $0.snapshots(of: setting.document.id, in: setting.project.id) }.count == 1)
    }
}
