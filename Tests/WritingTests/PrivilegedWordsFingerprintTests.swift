import CryptoVault
import Foundation
import PrivilegedSession
import Testing
import TestSupport
@testable import Writing

/// The words written into a privileged project are fingerprinted for the leak guard (SECURITY.md
/// §11.7), whichever writing door seals them: so a session note pasted into an ordinary project is a
/// `privilegedQuote` when it would leave (review 17 s13, N-s13-2: before, only `put` and `seal` were
/// fingerprinted, and the pasted note left by sync with nothing found).
@Suite struct PrivilegedWordsFingerprintTests {
    static let note = "Client disclosed that her brother threatened the landlord with a knife on the third of March."
    static let paste = "Chapter two. Client disclosed that her brother threatened the landlord with a knife, my notes say."

    /// What the egress funnel decides for `payload` leaving `project`'s compartment for a paired
    /// colleague's device: the check sync's pushes and pulls make.
    static func leaving(_ payload: String, from project: WritingProject, in fixture: WritingFixture) throws -> EgressOutcome {
        try EgressFunnel(vault: fixture.unlocked).submit(EgressRequest(destination: EgressDestination(kind: .model, id: "summarizer"),
                                                                       compartments: [project.compartment], payload: Array(payload.utf8)))
    }

    static func findings(_ payload: String, from project: WritingProject, in fixture: WritingFixture) throws -> [LeakKind] {
        try leaving(payload, from: project, in: fixture).findings.map(\.kind)
    }

    @Test("a privileged document's words, written here or received by sync, make a verbatim paste a privilegedQuote")
    func documentWordsAreFingerprinted() throws {
        for received in [false, true] {
            let fixture = try WritingFixture()
            let chart = try fixture.project("Intake", register: .healthcare, kind: .document)
            let book = try fixture.project("Memoir", register: .fiction, kind: .longForm)
            #expect(try Self.findings(Self.paste, from: book, in: fixture).isEmpty, "nothing is privileged yet")
            let note = try fixture.store { try $0.addNode(.scene, titled: "Session 4", in: chart.id) }
            let content = try WritingFixture.paragraphs(["S: slept badly.", Self.note])
            if received {
                try fixture.store { try $0.replaceSyncedDocumentContent(of: note.id, in: chart.id, with: content) }
            } else {
                try fixture.store { try $0.replaceDocumentContent(of: note.id, in: chart.id, with: content) }
            }
            let outcome = try Self.leaving(Self.paste, from: book, in: fixture)
            #expect(outcome.decision == .redact && outcome.findings.map(\.kind) == [.privilegedQuote], "received: \(received)")
            #expect(try Self.findings("The landlord was threatened, the client said, in March.", from: book, in: fixture).isEmpty,
                    "fewer than eight consecutive words of the note are no quote")
        }
    }

    @Test("an ordinary project's words add no privileged fingerprint, and the vault keeps no word of either")
    func onlyPrivilegedWords() throws {
        let fixture = try WritingFixture()
        let book = try fixture.project("Memoir", register: .fiction, kind: .longForm)
        let chapter = try fixture.store { try $0.addNode(.scene, titled: "One", in: book.id) }
        try fixture.store { try $0.replaceDocumentContent(of: chapter.id, in: book.id, with: try WritingFixture.paragraphs(["Chapter one opens on a wet morning in the harbour town of Aberlady."])) }
        #expect(try fixture.unlocked.leakFingerprints().isEmpty)
        let chart = try fixture.project("Intake", register: .healthcare, kind: .document)
        let note = try fixture.store { try $0.addNode(.scene, titled: "Session 4", in: chart.id) }
        try fixture.store { try $0.replaceDocumentContent(of: note.id, in: chart.id, with: try WritingFixture.paragraphs([Self.note])) }
        // 16 words: 9 shingles of eight.
        #expect(try fixture.unlocked.leakFingerprints().count == 9)
        let database = try Data(contentsOf: URL(fileURLWithPath: fixture.vault.vault.databasePath))
        #expect(database.range(of: Data("landlord".utf8)) == nil && database.range(of: Data("Aberlady".utf8)) == nil)
    }

    @Test("words that were ordinary first stay ordinary when a privileged project quotes them; a note written first stays privileged")
    func ordinaryFirstStaysOrdinary() throws {
        let fixture = try WritingFixture()
        let shared = "The landlord agreed to repair the boiler before the end of the month, the tenants said."
        let book = try fixture.project("Tenants' newsletter", register: .fiction, kind: .document)
        let article = try fixture.store { try $0.addNode(.scene, titled: "Boiler", in: book.id) }
        try fixture.store { try $0.replaceDocumentContent(of: article.id, in: book.id, with: try WritingFixture.paragraphs([shared])) }
        let chart = try fixture.project("Intake", register: .healthcare, kind: .document)
        let note = try fixture.store { try $0.addNode(.scene, titled: "Session 4", in: chart.id) }
        try fixture.store { try $0.replaceDocumentContent(of: note.id, in: chart.id, with: try WritingFixture.paragraphs([shared, Self.note])) }
        // The copied paragraph is no quote of the chart (lg3); the note written in the chart is.
        #expect(try Self.findings("As we wrote: the landlord agreed to repair the boiler before the end of the month.", from: book, in: fixture).isEmpty)
        #expect(try Self.findings(Self.paste, from: book, in: fixture) == [.privilegedQuote])
        // Pasting the note into the newsletter afterwards does not make it ordinary.
        try fixture.store { try $0.replaceDocumentContent(of: article.id, in: book.id, with: try WritingFixture.paragraphs([shared, Self.note])) }
        #expect(try Self.findings(Self.paste, from: book, in: fixture) == [.privilegedQuote])
    }

    @Test("an entry's body and a branch's words in a privileged project are fingerprinted too")
    func entriesAndBranches() throws {
        let fixture = try WritingFixture()
        let matter = try fixture.project("Smith v. Jones", register: .legal, kind: .document)
        let memo = try fixture.project("Blog", register: .fiction, kind: .document)
        _ = try fixture.store { try $0.addEntry(.plotBeat, named: "Threat", body: Self.note, in: matter.id) }
        #expect(try Self.findings(Self.paste, from: memo, in: fixture) == [.privilegedQuote])

        let other = try WritingFixture()
        let chart = try other.project("Intake", register: .healthcare, kind: .document)
        let blog = try other.project("Blog", register: .fiction, kind: .document)
        let session = try other.session(of: chart)
        defer { try? session.end() }
        let note = try other.store { try $0.addNode(.scene, titled: "Session 4", in: chart.id) }
        try other.store { try $0.replaceDocumentContent(of: note.id, in: chart.id, with: try WritingFixture.paragraphs(["S: slept badly."])) }
        let base = try other.store(.session(session)) { try $0.createSnapshot(of: note.id, in: chart.id) }
        #expect(try Self.findings(Self.paste, from: blog, in: other).isEmpty)
        _ = try other.store(.session(session)) {
            try $0.createBranch(of: note.id, in: chart.id, base: base.id, content: try WritingFixture.paragraphs([Self.note]),
                                kind: .syncConflict, provenance: "sync conflict")
        }
        #expect(try Self.findings(Self.paste, from: blog, in: other) == [.privilegedQuote])
    }
}
