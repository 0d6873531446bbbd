import CryptoVault
import Foundation
import Synchronization
import Testing
import TestSupport
@testable import Writing

/// A wall clock a test moves by hand.
final class ManualWallClock: Sendable {
    let seconds = Mutex<Int64>(1_800_000_000)

    var clock: VaultClock { VaultClock { self.seconds.withLock { $0 } } }
    var now: Int64 { seconds.withLock { $0 } }

    func advance(minutes: Int64, seconds extra: Int64 = 0) { seconds.withLock { $0 += minutes * 60 + extra } }
}

/// Edit events (SECURITY.md §15.5), with an injected clock: one event per writing session per
/// device, a new one after a 30-minute pause, and in privileged projects start and end stamps in the
/// audit log that carry ids, counts and times but no word of the text.
@Suite struct SceneEditEventTests {
    let fixture: WritingFixture
    let time = ManualWallClock()

    init() throws { fixture = try WritingFixture() }

    func document(_ title: String, in project: WritingProject, _ access: RecordAccess = .vault) throws -> NodeID {
        try fixture.store(access, clock: time.clock) { try $0.addNode(.scene, titled: title, in: project.id).id }
    }

    func write(_ texts: [String], to document: NodeID, in project: WritingProject, _ access: RecordAccess = .vault,
               keeping content: DocumentContent? = nil) throws -> DocumentContent {
        var blocks = content?.blocks ?? []
        for (index, text) in texts.enumerated() {
            let id = index < blocks.count ? blocks[index].id : try BlockID.random()
            let block = Block(id: id, kind: .paragraph, text: text)
            if index < blocks.count { blocks[index] = block } else { blocks.append(block) }
        }
        let written = DocumentContent(blocks: Array(blocks.prefix(texts.count)))
        try fixture.store(access, clock: time.clock) { try $0.replaceDocumentContent(of: document, in: project.id, with: written) }
        return written
    }

    func events(_ project: WritingProject, _ access: RecordAccess = .vault) throws -> [SceneEditEvent] {
        try fixture.store(access, clock: time.clock) { try $0.editEvents(in: project.id) }
    }

    @Test("edits of one device less than 30 minutes apart, in several documents, merge into one event with each document's word change")
    func editsWithinTheGapMerge() throws {
        let project = try fixture.project()
        let arrival = try document("Arrival", in: project), harbour = try document("Harbour", in: project)
        let start = time.now
        let first = try write(["The boat came in."], to: arrival, in: project)
        time.advance(minutes: 29, seconds: 59)
        _ = try write(["The boat came in late.", "Grey sky, no wind."], to: arrival, in: project, keeping: first)
        time.advance(minutes: 10)
        _ = try write(["Gulls."], to: harbour, in: project)
        let found = try events(project)
        #expect(found.count == 1)
        let event = try #require(found.first)
        #expect(event.edits == 3 && event.startedAt == start && event.lastEditAt == time.now && event.endedAt == nil)
        #expect(event.documents == [DocumentEdit(document: arrival, wordDelta: 9), DocumentEdit(document: harbour, wordDelta: 1)])
        #expect(event.wordDelta == 10)
        #expect(event.deviceID == (try fixture.unlocked.vault.auditDeviceID()))
    }

    @Test("an edit 30 minutes or more after the last one ends that session at its last edit and starts a new event")
    func aPauseStartsANewEvent() throws {
        let project = try fixture.project()
        let arrival = try document("Arrival", in: project)
        let first = try write(["One two three."], to: arrival, in: project)
        let firstEdit = time.now
        time.advance(minutes: 30)
        _ = try write(["One two."], to: arrival, in: project, keeping: first)
        let found = try events(project)
        #expect(found.count == 2)
        #expect(found.map(\.endedAt) == [firstEdit, nil])
        #expect(found.map(\.wordDelta) == [3, -1])
        #expect(found.map(\.edits) == [1, 1])
        #expect(found[1].startedAt == time.now)
    }

    @Test("a WritingSession is the device's run of edits its events merge into: open while an edit may join, listed across projects without opening anything")
    func writingSessionsAreTheRunsEventsMergeInto() throws {
        let novel = try fixture.project(), memo = try fixture.project("Memo", register: .legal, kind: .document)
        let session = try fixture.session(of: memo)
        defer { try? session.end() }
        let arrival = try document("Arrival", in: novel), brief = try document("Brief", in: memo, .session(session))
        let first = try write(["One."], to: arrival, in: novel)
        time.advance(minutes: 1)
        _ = try write(["Question presented."], to: brief, in: memo, .session(session))
        // Listed with the vault's own access: a privileged project's session is clear rows only.
        let open = try fixture.store(clock: time.clock) { try $0.openWritingSessions() }
        #expect(open.map(\.project) == [novel.id, memo.id] && open.allSatisfy(\.isOpen))
        let novelSession = try #require(open.first)
        #expect(novelSession.continues(at: time.now + WritingSessionRule.gap - 61) && !novelSession.continues(at: time.now + WritingSessionRule.gap))
        time.advance(minutes: 10)
        _ = try write(["One, two."], to: arrival, in: novel, keeping: first)
        let event = try #require(try events(novel).first)
        #expect(event.session.id == novelSession.id && event.session.edits == 2 && event.session.isOpen)
        time.advance(minutes: 30)
        _ = try write(["One."], to: arrival, in: novel, keeping: first)
        let sessions = try events(novel).map(\.session)
        #expect(sessions.map(\.isOpen) == [false, true] && !sessions[0].continues(at: time.now))
        #expect(try fixture.store(clock: time.clock) { try $0.openWritingSessions() }.map(\.id) == [open[1].id, sessions[1].id])
    }

    @Test("a write that changes nothing is no edit and records no event")
    func anUnchangedWriteIsNoEdit() throws {
        let project = try fixture.project()
        let arrival = try document("Arrival", in: project)
        let content = try write(["Still."], to: arrival, in: project)
        time.advance(minutes: 45)
        try fixture.store(clock: time.clock) { try $0.replaceDocumentContent(of: arrival, in: project.id, with: content) }
        #expect(try events(project).map(\.edits) == [1])
    }

    @Test("sessions are per device: another device's open session is not joined, and stays as it was")
    func sessionsArePerDevice() throws {
        let project = try fixture.project()
        let arrival = try document("Arrival", in: project)
        let other = try AuditDeviceID(bytes: [UInt8](repeating: 0xAB, count: 16))
        let otherEvent = try EditEventID.random()
        try fixture.store(clock: time.clock) { store in
            try store.editEventTable.insert(EditEventTable.Row(id: otherEvent, project: project.id, deviceID: other, startedAt: time.now,
                                                               lastEditAt: time.now, endedAt: nil, edits: 1))
            try store.seal(EditEventRecord(documents: [DocumentEdit(document: arrival, wordDelta: 4)]).encoded(),
                           at: try WritingRecord.editEvent(otherEvent), of: project)
        }
        time.advance(minutes: 1)
        _ = try write(["Mine now."], to: arrival, in: project)
        let found = try events(project)
        #expect(found.count == 2)
        let theirs = try #require(found.first { $0.deviceID == other })
        #expect(theirs.id == otherEvent && theirs.edits == 1 && theirs.endedAt == nil && theirs.wordDelta == 4)
        let mine = try #require(found.first { $0.deviceID != other })
        #expect(mine.deviceID == (try fixture.unlocked.vault.auditDeviceID()) && mine.wordDelta == 2)
    }

    @Test("a privileged project's sessions are stamped: start at the first edit, end when the next edit comes after the gap; no word of the text in any stamp")
    func privilegedSessionsAreStampedWithoutWords() throws {
        let project = try fixture.project("Intake", register: .healthcare, kind: .document)
        #expect(project.isPrivileged)
        let session = try fixture.session(of: project)
        defer { try? session.end() }
        let note = try document("Session 1", in: project, .session(session))
        let first = try write(["Patient reports insomnia since March."], to: note, in: project, .session(session))
        time.advance(minutes: 5)
        _ = try write(["Patient reports insomnia since March.", "Sleeps four hours."], to: note, in: project, .session(session), keeping: first)
        let ended = time.now
        time.advance(minutes: 31)
        _ = try write(["Plan: review in a week."], to: note, in: project, .session(session))
        let stamps = fixture.vault.recording.events.withLock { $0 }.filter { $0.action.name.hasPrefix("writing.edit-session") }
        #expect(stamps.map(\.action) == [.writingEditSessionStart, .writingEditSessionEnd, .writingEditSessionStart])
        let found = try events(project, .session(session))
        let end = try #require(stamps.dropFirst().first)
        let details = Dictionary(uniqueKeysWithValues: end.details.map { ($0.name, $0.value) })
        #expect(details == ["event": found[0].id.hex, "documents": note.hex, "words": "8", "edits": "2",
                            "started": String(ended - 5 * 60), "ended": String(ended)])
        #expect(end.compartmentID == project.compartment.id && end.subjectID == project.id.bytes)
        #expect(stamps[0].details.map(\.name) == ["event", "document", "started"])
        for event in fixture.vault.recording.events.withLock({ $0 }) {
            let clear = ([event.action.name] + event.details.flatMap { [$0.name, $0.value] }).joined(separator: " ").lowercased()
            for word in ["insomnia", "march", "sleeps", "week"] {
                #expect(!clear.contains(word), "\(event.action.name) carries '\(word)'")
            }
        }
    }

    @Test("an ordinary project's sessions leave no stamps; ending one explicitly marks it ended at its last edit")
    func ordinaryProjectsAreNotStamped() throws {
        let project = try fixture.project()
        let arrival = try document("Arrival", in: project)
        _ = try write(["Dawn."], to: arrival, in: project)
        let lastEdit = time.now
        time.advance(minutes: 2)
        #expect(try fixture.store(clock: time.clock) { try $0.endWritingSessions(in: project.id) }.isEmpty, "not yet over")
        let ended = try fixture.store(clock: time.clock) { try $0.endWritingSessions(in: project.id, now: true) }
        #expect(ended.map(\.endedAt) == [lastEdit])
        #expect(!fixture.vault.recording.actions.contains { $0.hasPrefix("writing.edit-session") })
        _ = try write(["Dawn again."], to: arrival, in: project)
        #expect(try events(project).count == 2, "an ended session is never joined again")
        try fixture.store { try $0.archive(project.id) }
        #expect(try fixture.store(clock: time.clock) { try $0.endWritingSessions(in: project.id, now: true) }.isEmpty, "archived: left as it is")
        #expect(try events(project).map(\.endedAt).last == .some(nil))
    }

    @Test("ending a privileged session by hand stamps its end; listing events needs a session")
    func explicitEndIsStamped() throws {
        let project = try fixture.project("Intake", register: .healthcare, kind: .document)
        let session = try fixture.session(of: project)
        defer { try? session.end() }
        let note = try document("Session 1", in: project, .session(session))
        _ = try write(["Calm today."], to: note, in: project, .session(session))
        #expect(writingCode { try events(project) } == .privilegedSessionRequired)
        #expect(writingCode { try fixture.store(clock: time.clock) { try $0.endWritingSessions(in: project.id, now: true) } } == .privilegedSessionRequired)
        _ = try fixture.store(.session(session), clock: time.clock) { try $0.endWritingSessions(in: project.id, now: true) }
        #expect(fixture.vault.recording.actions.filter { $0.hasPrefix("writing.edit-session") } == ["writing.edit-session-start", "writing.edit-session-end"])
    }

    @Test("damaged edit event values are refused as damagedRecord, each for its reason",
          arguments: [([UInt8]([2, 0, 0, 0, 1]) + [UInt8](repeating: 1, count: 20), "version"),
                      ([1, 0, 0, 0, 0], "0 documents"),
                      ([UInt8]([1, 0, 0, 0, 1]) + [UInt8](repeating: 1, count: 21), "length"),
                      ([UInt8]([1, 0, 0, 0, 2]) + [UInt8](repeating: 1, count: 40), "twice")])
    func damagedRecordsAreRefused(_ bytes: [UInt8], _ reason: String) {
        do {
            _ = try EditEventRecord(parsing: bytes)
            Issue.record("accepted a damaged edit event value")
        } catch {
            #expect(error.code == .damagedRecord && error.message.contains(reason), "\(error.message)")
        }
    }

    @Test("an event value round-trips, negative word changes included")
    func recordRoundTrips() throws {
        let record = EditEventRecord(documents: [DocumentEdit(document: try NodeID.random(), wordDelta: -12),
                                                 DocumentEdit(document: try NodeID.random(), wordDelta: 70_000)])
        #expect(try EditEventRecord(parsing: record.encoded()) == record)
        #expect(record.encoded().count == 5 + 2 * 20)
    }
}
