import CryptoVault
import Foundation
import Registers
import Testing
import TestSupport
@testable import Writing

/// The store: projects with their own compartments, the binder's order and nesting across moves,
/// documents' blocks as sealed records, and nothing written in clear.
@Suite struct WritingStoreTests {
    @Test("a healthcare or legal project is privileged by default, a fiction one not; each has a compartment of its own")
    func privacyFollowsTheRegister() throws {
        let fixture = try WritingFixture()
        let chart = try fixture.project("Intake", register: .healthcare, kind: .document)
        let matter = try fixture.project("Smith v. Jones", register: .legal, kind: .document)
        let novel = try fixture.project()
        #expect(chart.isPrivileged && matter.isPrivileged && !novel.isPrivileged)
        #expect(Set([chart, matter, novel].map(\.compartment.id)).count == 3)
        let open = try fixture.unlocked.createWritingProject(named: "Ward notes", register: .healthcare, kind: .document, privileged: false)
        #expect(!open.isPrivileged)
        let listed = try fixture.store { try $0.projects() }
        #expect(listed.map(\.id) == [chart.id, matter.id, novel.id, open.id])
        #expect(try fixture.store { try $0.name(of: novel) } == "Novel")
    }

    @Test("a privileged project's names and content open only in a session of its compartment")
    func privilegedReadsNeedASession() throws {
        let fixture = try WritingFixture()
        let chart = try fixture.project("Intake", register: .healthcare, kind: .document)
        let other = try fixture.project("Other chart", register: .healthcare, kind: .document)
        let note = try fixture.store { try $0.addNode(.scene, titled: "Session 1", in: chart.id) }
        try fixture.store { try $0.replaceDocumentContent(of: note.id, in: chart.id, with: try WritingFixture.paragraphs(["S: slept badly"])) }
        #expect(writingCode { try fixture.store { try $0.name(of: chart) } } == .privilegedSessionRequired)
        let wrongSession = try fixture.session(of: other)
        #expect(writingCode { try fixture.store(.session(wrongSession)) { try $0.documentContent(of: note.id, in: chart.id) } }
            == .privilegedSessionRequired)
        let session = try fixture.session(of: chart)
        defer { try? session.end() }
        let content = try fixture.store(.session(session)) { try $0.documentContent(of: note.id, in: chart.id) }
        #expect(content.blocks.map(\.text) == ["S: slept badly"])
        #expect(try fixture.store(.session(session)) { try $0.nodes(in: chart.id) }.map(\.title) == ["Session 1"])
    }

    @Test("the binder reads depth first with siblings in order; a move keeps ids, titles and content and changes one row")
    func binderOrderSurvivesMoves() throws {
        let fixture = try WritingFixture()
        let novel = try fixture.project()
        let (one, two, scene1, scene2, scene3) = try fixture.store { store in
            let one = try store.addNode(.chapter, titled: "One", in: novel.id)
            let two = try store.addNode(.chapter, titled: "Two", in: novel.id)
            let s1 = try store.addNode(.scene, titled: "Arrival", in: novel.id, under: one.id)
            let s2 = try store.addNode(.scene, titled: "Storm", in: novel.id, under: one.id)
            let s3 = try store.addNode(.scene, titled: "Harbour", in: novel.id, under: one.id, before: s2.id)
            return (one, two, s1, s2, s3)
        }
        #expect(try fixture.store { try $0.nodes(in: novel.id) }.map(\.title) == ["One", "Arrival", "Harbour", "Storm", "Two"])
        try fixture.store { try $0.replaceDocumentContent(of: scene2.id, in: novel.id, with: try WritingFixture.paragraphs(["Rain."])) }
        try fixture.store { try $0.moveNode(scene2.id, in: novel.id, under: two.id) }
        try fixture.store { try $0.moveNode(scene3.id, in: novel.id, under: one.id, before: scene1.id) }
        let nodes = try fixture.store { try $0.nodes(in: novel.id) }
        #expect(nodes.map(\.title) == ["One", "Harbour", "Arrival", "Two", "Storm"])
        #expect(nodes.first { $0.id == scene2.id }?.parent == two.id)
        #expect(try fixture.store { try $0.documentContent(of: scene2.id, in: novel.id) }.blocks.map(\.text) == ["Rain."])
        // A folder moves with everything in it.
        try fixture.store { try $0.moveNode(one.id, in: novel.id, under: two.id) }
        let outline = try fixture.store { try $0.outline(of: novel.id) }
        #expect(outline.map(\.depth) == [1, 2, 2, 3, 3])
        #expect(outline.map(\.id) == [two.id, scene2.id, one.id, scene3.id, scene1.id])
    }

    @Test("order keys: always one strictly between, valid, after many inserts at one place and at random places")
    func orderKeysStayBetween() {
        var low: String? = nil
        var high: String? = OrderKey.first
        for step in 0..<200 {
            let key = OrderKey.between(low, high)
            #expect(OrderKey.isValid(key))
            if let low { #expect(low < key) }
            if let high { #expect(key < high) }
            if step % 2 == 0 { high = key } else { low = key }
        }
        var generator = SeededGenerator(seed: 15)
        var keys = [OrderKey.first]
        for _ in 0..<3_000 {
            let index = Int.random(in: 0...keys.count, using: &generator)
            let key = OrderKey.between(index > 0 ? keys[index - 1] : nil, index < keys.count ? keys[index] : nil)
            keys.insert(key, at: index)
        }
        #expect(keys == keys.sorted() && Set(keys).count == keys.count && keys.allSatisfy(OrderKey.isValid))
    }

    @Test("a run of keys between two is ascending, valid and short (review 17 s10, N-s10-2); a 256-byte key is refused")
    func runsOfKeysAreEvenlySpread() {
        for (lower, upper) in [(nil, nil), ("1i", "1j"), ("1i", nil), (nil, "1i"), ("1i", "1i01")] as [(String?, String?)] {
            let keys = OrderKey.keys(1_600, between: lower, upper)
            #expect(keys.count == 1_600 && keys == keys.sorted() && Set(keys).count == keys.count && keys.allSatisfy(OrderKey.isValid))
            if let lower { #expect(lower < keys[0]) }
            if let upper { #expect(keys[keys.count - 1] < upper) }
            // About log36(1,600) digits past the neighbours': one after another made 1,600/6.
            #expect(keys.map(\.utf8.count).max()! <= 8, "\(String(describing: lower)) \(String(describing: upper))")
        }
        #expect(OrderKey.isValid("1i" + String(repeating: "1", count: 253)))
        #expect(!OrderKey.isValid("1i" + String(repeating: "1", count: 254)))  // the change record's str8 holds 255
    }

    @Test("appending 30,000 keys at the end keeps them short: the integer grows a digit per factor of 36")
    func appendedKeysStayShort() {
        var keys = [OrderKey.first]
        for _ in 0..<30_000 { keys.append(OrderKey.between(keys.last, nil)) }
        #expect(keys == keys.sorted() && keys.allSatisfy(OrderKey.isValid))
        #expect(keys.map(\.utf8.count).max() == 4)
        var prepended = [OrderKey.first]
        for _ in 0..<200 { prepended.insert(OrderKey.between(nil, prepended[0]), at: 0) }
        #expect(prepended == prepended.sorted() && prepended.allSatisfy(OrderKey.isValid))
        #expect(!OrderKey.isValid("0") && !OrderKey.isValid("1i0") && !OrderKey.isValid("2i") && !OrderKey.isValid("1I"))
    }

    @Test("replacing a document's content reseals only the blocks that changed, keeps the ids, removes the dropped")
    func oneBlockEditResealsOneRecord() throws {
        let fixture = try WritingFixture()
        let novel = try fixture.project()
        let scene = try fixture.store { try $0.addNode(.scene, titled: "Storm", in: novel.id) }
        let first = try WritingFixture.paragraphs(["It rained.", "The boat left.", "Nobody waved."])
        let initial = try fixture.store { try $0.replaceDocumentContent(of: scene.id, in: novel.id, with: first) }
        #expect(initial == ContentChange(sealed: 3, kept: 0, removed: 0))
        var edited = first
        edited.blocks[1].text = "The boat left at dawn."
        let before = fixture.vault.recording.actions.filter { $0 == "record.seal" }.count
        let change = try fixture.store { try $0.replaceDocumentContent(of: scene.id, in: novel.id, with: edited) }
        #expect(change == ContentChange(sealed: 1, kept: 2, removed: 0))
        // The one changed block, and the writing session's edit event it is merged into (§15.5), in
        // the transaction's one record.seal entry.
        let seals = fixture.vault.recording.events.withLock { $0.filter { $0.action.name == "record.seal" } }
        #expect(seals.count == before + 1)
        let sealed = seals.last?.details.first { $0.name == "records" }?.value.split(separator: "\n") ?? []
        #expect(sealed.map { $0.split(separator: "/")[1] } == ["writing_blocks", "writing_edit_events"])
        #expect(try fixture.store { try $0.documentContent(of: scene.id, in: novel.id) } == edited)
        // Dropping, reordering and a new kind.
        var next = edited
        next.blocks.remove(at: 0)
        next.blocks.reverse()
        next.blocks[0].kind = .heading(level: 2)
        let third = try fixture.store { try $0.replaceDocumentContent(of: scene.id, in: novel.id, with: next) }
        #expect(third == ContentChange(sealed: 1, kept: 1, removed: 1))
        #expect(try fixture.store { try $0.documentContent(of: scene.id, in: novel.id) } == next)
        #expect(try fixture.store { try $0.replaceDocumentContent(of: scene.id, in: novel.id, with: next) }.isEmpty)
    }

    @Test("parsed text keeps the ids of the blocks that did not change, so a one-paragraph edit reseals one block")
    func parsedTextReusesIDs() throws {
        let old = try PlainText.parse(Array("# Title\n\nOne.\n\nTwo.\n- a\n- b\n".utf8))
        let new = try PlainText.parse(Array("# Title\n\nOne, changed.\n\nTwo.\n- a\n- b\n- c\n".utf8)).reusingIDs(of: old)
        #expect(new.blocks.count == 6)
        #expect(Array(new.blocks.prefix(5).map(\.id)) == old.blocks.map(\.id))
        #expect(!old.blocks.map(\.id).contains(new.blocks[5].id))
    }

    @Test("the text form: blank lines split paragraphs, # headings, - items, > quotes; render gives it back")
    func plainTextRoundTrips() throws {
        let text = "# Memo\n\n## Question presented\n\nWhether the clause binds.\nSecond line.\n\n- first\n- second\n\n> quoted\n> on two lines\n"
        let content = try PlainText.parse(Array(text.utf8))
        #expect(content.blocks.map(\.kind) == [.heading(level: 1), .heading(level: 2), .paragraph, .listItem, .listItem, .quote])
        #expect(content.blocks[2].text == "Whether the clause binds.\nSecond line.")
        #expect(content.blocks[5].text == "quoted\non two lines")
        #expect(PlainText.render(content) == text)
        #expect(try PlainText.parse(Array("a\r\n\r\nb".utf8)).blocks.map(\.text) == ["a", "b"])
        // A lone CR is a line break too (found by WritingTextFuzz: ">" then CR, printed and read back, was a quote).
        #expect(try PlainText.parse(Array(">\rx".utf8)).blocks.map(\.kind) == [.quote, .paragraph])
        #expect(try PlainText.parse([]).blocks.isEmpty)
    }

    @Test("the text form read where it lies in locked memory (doc write's input) gives the blocks the same bytes give, and refuses the same")
    func plainTextFromLockedMemory() throws {
        let texts = ["# Memo\r\n\r\nOne\rtwo\n- a\n- b\n> q\n>\n> r", "", "\n\n", "x", "é\r\n\r\n\r- ü\r\n"]
        for text in texts {
            let fromBytes = try PlainText.parse(Array(text.utf8))
            let fromLocked = try PlainText.parse(SecureBytes(copying: Array(text.utf8)))
            #expect(fromLocked.blocks.map { [BlockEncoding.name(of: $0.kind), $0.text] } == fromBytes.blocks.map { [BlockEncoding.name(of: $0.kind), $0.text] },
                    "\(text.debugDescription)")
        }
        // A sequence cut by a line break, a stray continuation byte at a line's end, a control character: each refused, and why.
        for (bytes, reason) in [([0xC3, 0x0A, 0xA9], "not valid UTF-8"), ([0x61, 0x80, 0x0D, 0x62], "not valid UTF-8"), ([0x61, 0x0A, 0x1B], "U+1B")] as [([UInt8], String)] {
            do {
                _ = try PlainText.parse(SecureBytes(copying: bytes))
                Issue.record("\(bytes) was read")
            } catch let error as WritingError {
                #expect(error.code == .invalidText && error.message.contains(reason), "\(error.message)")
            }
        }
    }

    @Test("block and entry encodings round trip and refuse damage: a short length, trailing bytes, an unknown kind")
    func encodingsRoundTripAndRefuseDamage() throws {
        let table = Block(id: try BlockID.random(), kind: .table, rows: [["Name", "Role"], ["Ada", "Plaintiff"]])
        let field = Block(id: try BlockID.random(), kind: .field(.personRole), text: "Defendant")
        for block in [table, field, Block(id: try BlockID.random(), kind: .heading(level: 3), text: "Facts")] {
            #expect(try BlockEncoding.decode(BlockEncoding.encode(block), id: block.id) == block)
        }
        let encoded = BlockEncoding.encode(field)
        #expect(writingCode { try BlockEncoding.decode(encoded + [0], id: field.id) } == .damagedRecord)
        #expect(writingCode { try BlockEncoding.decode(Array(encoded.dropLast()), id: field.id) } == .damagedRecord)
        #expect(writingCode { try BlockEncoding.decode([1, 3] + Array("odd".utf8) + [0, 0, 0, 0, 0, 0, 0, 0], id: field.id) } == .damagedRecord)
        let entry = ProjectEntry(id: try EntryID.random(), kind: .character, name: "Ada", body: "The plaintiff.",
                                 fields: [.personRole: "Plaintiff", .personIdentification: "ID 4"], orderKey: "i")
        #expect(try EntryEncoding.decode(EntryEncoding.encode(entry), id: entry.id, kind: .character, orderKey: "i") == entry)
        #expect(writingCode { try EntryEncoding.decode(EntryEncoding.encode(entry), id: entry.id, kind: .place, orderKey: "i") } == .damagedRecord)
    }

    @Test("characters, places, plot beats and snippets are sealed entries with their kind's slots")
    func entriesRoundTrip() throws {
        let fixture = try WritingFixture()
        let matter = try fixture.project("Smith v. Jones", register: .legal, kind: .document)
        let session = try fixture.session(of: matter)
        defer { try? session.end() }
        let party = try fixture.store { try $0.addEntry(.character, named: "Ada Smith", fields: [.personRole: "Plaintiff"], in: matter.id) }
        _ = try fixture.store { try $0.addEntry(.plotBeat, named: "Was the clause signed?", body: "Disputed.", in: matter.id) }
        #expect(writingCode { try fixture.store { try $0.addEntry(.place, named: "Court", fields: [.personRole: "x"], in: matter.id) } }
            == .invalidText)
        var entries = try fixture.store(.session(session)) { try $0.entries(in: matter.id) }
        #expect(entries.map(\.name) == ["Ada Smith", "Was the clause signed?"])
        entries[0].fields[.personIdentification] = "DOB on file"
        try fixture.store { try $0.updateEntry(entries[0], in: matter.id) }
        #expect(try fixture.store(.session(session)) { try $0.entries(.character, in: matter.id) }.first?.fields
            == [.personRole: "Plaintiff", .personIdentification: "DOB on file"])
        try fixture.store { try $0.removeEntry(party.id, in: matter.id) }
        #expect(try fixture.store(.session(session)) { try $0.entries(.character, in: matter.id) }.isEmpty)
    }

    @Test("no title, name or text is in the database file in clear")
    func nothingInClear() throws {
        let fixture = try WritingFixture()
        let novel = try fixture.project("Zanzibar Chronicles")
        let scene = try fixture.store { try $0.addNode(.scene, titled: "Quixotic harbour", in: novel.id) }
        try fixture.store { store in
            try store.replaceDocumentContent(of: scene.id, in: novel.id, with: try WritingFixture.paragraphs(["Xylophones at midnight."]))
            _ = try store.addEntry(.character, named: "Wilhelmina Quartz", in: novel.id)
        }
        let bytes = fixture.vault.databaseFileBytes()
        for secret in ["Zanzibar", "Quixotic", "Xylophones", "Wilhelmina"] {
            #expect(!bytes.contains(subsequence: Array(secret.utf8)), "\(secret) is in the file in clear")
        }
    }

    struct Injected: Error {}

    @Test("a project and its compartment commit in one transaction: the compartment's, the name's and the project's entries in one batch")
    func creationIsOneTransaction() throws {
        let fixture = try WritingFixture()
        let chart = try fixture.project("Intake", register: .healthcare, kind: .document)
        #expect(fixture.vault.recording.batches.withLock { $0.last } == ["compartment.create", "record.seal", "writing.project-create"])
        let (create, project) = try fixture.vault.recording.events.withLock { events in
            (try #require(events.dropLast(2).last), try #require(events.last))
        }
        #expect(create.compartmentID == chart.compartment.id && project.compartmentID == chart.compartment.id)
        #expect(create.details == [.init("name", "project \(chart.id.hex)"), .init("register", "healthcare"), .init("privileged", "yes")])
        #expect(project.subjectID == chart.id.bytes)
        #expect(try fixture.unlocked.compartments().map(\.id) == [chart.compartment.id])
    }

    @Test("a project whose creation fails after its compartment was made leaves no compartment, no project and no entry")
    func failedCreationLeavesNothing() throws {
        let fixture = try WritingFixture()
        let before = fixture.vault.recording.actions
        #expect(throws: Injected.self) {
            try fixture.unlocked.transaction { tx in
                let project = try WritingStore(tx).createProject(named: "Intake", register: .healthcare, kind: .document)
                #expect(try tx.vault.compartments().map(\.id) == [project.compartment.id])
                throw Injected()
            }
        }
        #expect(fixture.vault.recording.actions == before)
        #expect(try fixture.unlocked.compartments().isEmpty)
        #expect(try fixture.storeState() == [])
        let compartmentRows = try Database(path: fixture.vault.vault.databasePath, create: false, readOnly: true)
            .queryOne("SELECT count(*) AS n FROM compartments")?.integer("n")
        #expect(compartmentRows == 0, "a compartment row was left (destroyed or not)")
    }

    @Test("an invalid project name is refused (.invalidName) and leaves no compartment behind")
    func invalidNameLeavesNoCompartment() throws {
        let fixture = try WritingFixture()
        let before = fixture.vault.recording.actions
        #expect(writingCode { try fixture.unlocked.createWritingProject(named: " padded", register: .fiction, kind: .longForm) } == .invalidName)
        #expect(fixture.vault.recording.actions == before)
        #expect(try fixture.unlocked.compartments().isEmpty)
    }

    @Test("rename, archive and a new register: an archived project refuses changes and reads as before")
    func renameArchiveRegister() throws {
        let fixture = try WritingFixture()
        let novel = try fixture.project()
        try fixture.store { try $0.rename(novel.id, to: "Second novel") }
        try fixture.store { try $0.setRegister(novel.id, .screenwriting) }
        try fixture.store { try $0.archive(novel.id) }
        let archived = try fixture.store { try $0.project(novel.id) }
        #expect(archived.isArchived && archived.register == .screenwriting)
        #expect(try fixture.store { try $0.name(of: archived) } == "Second novel")
        #expect(writingCode { try fixture.store { try $0.addNode(.scene, titled: "New", in: novel.id) } } == .projectArchived)
        try fixture.store { try $0.archive(novel.id, false) }
        _ = try fixture.store { try $0.addNode(.scene, titled: "New", in: novel.id) }
    }

    @Test("a document is removed with its blocks and their records; a folder with anything in it is refused")
    func removal() throws {
        let fixture = try WritingFixture()
        let novel = try fixture.project()
        let chapter = try fixture.store { try $0.addNode(.chapter, titled: "One", in: novel.id) }
        let scene = try fixture.store { try $0.addNode(.scene, titled: "Storm", in: novel.id, under: chapter.id) }
        try fixture.store { try $0.replaceDocumentContent(of: scene.id, in: novel.id, with: try WritingFixture.paragraphs(["a", "b"])) }
        #expect(writingCode { try fixture.store { try $0.removeNode(chapter.id, in: novel.id) } } == .folderNotEmpty)
        try fixture.store { try $0.removeNode(scene.id, in: novel.id) }
        try fixture.store { try $0.removeNode(chapter.id, in: novel.id) }
        // The writing session's edit event stays: who edited what outlives the document (§15.5).
        #expect(try fixture.storeState().filter {
            !$0.hasPrefix("writing_projects") && !$0.contains("'writing_projects'") && !$0.hasPrefix("writing_edit_events")
                && !$0.contains("'writing_edit_events'")
        } == [])
    }
}

/// The code a throwing expression failed with, if it threw a WritingError.
func writingCode<T>(_ body: () throws -> T) -> WritingErrorCode? {
    do {
        _ = try body()
        return nil
    } catch let error as WritingError {
        return error.code
    } catch {
        return nil
    }
}
