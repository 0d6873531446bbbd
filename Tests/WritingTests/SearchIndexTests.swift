import CryptoVault
import Foundation
import Testing
import TestSupport
@testable import Writing

/// Full-text search (issue 15): words, phrases of adjacent words, prefixes, case and diacritics
/// folded; a query parsed strictly and bounded; a project's blocks read through the store's access
/// (a privileged project's only in a session), and the search recorded without its query.
@Suite("Search: query parser, in-memory index and the store's search")
struct SearchIndexTests {
    static func index(_ documents: [[String]]) throws -> SearchIndex {
        try SearchIndex(try documents.map { (try NodeID.random(), try WritingFixture.paragraphs($0)) })
    }

    static func found(_ query: String, in index: SearchIndex) throws -> [Int] {
        let ids = index.documents.map(\.id)
        return index.search(try SearchQuery(parsing: query)).hits.compactMap { hit in ids.firstIndex(of: hit.document) }
    }

    static let corpus = [
        ["The grey boat came into the harbour.", "Nobody waited on the quay."],
        ["A boat, salted grey, lay on its side.", "The harbourmaster slept."],
        ["Éclair and CAFÉ au lait at the station."],
    ]

    @Test("a word finds every document holding it; several words must all occur in the document")
    func words() throws {
        let index = try Self.index(Self.corpus)
        #expect(try Self.found("boat", in: index) == [0, 1])
        #expect(try Self.found("boat quay", in: index) == [0])
        #expect(try Self.found("quay station", in: index) == [])
    }

    @Test("a phrase matches only its words next to each other, in order, in one block")
    func phraseAdjacentOnly() throws {
        let index = try Self.index(Self.corpus + [["grey", "boat"]])
        #expect(try Self.found("\"grey boat\"", in: index) == [0])
        #expect(try Self.found("\"boat grey\"", in: index) == [])
        #expect(try Self.found("grey boat", in: index) == [0, 1, 3])
    }

    @Test("a phrase does not match across two cells of a table")
    func phraseNotAcrossCells() throws {
        let table = Block(id: try BlockID.random(), kind: .table, rows: [["grey", "boat"], ["grey boat", "x"]])
        let index = try SearchIndex([(try NodeID.random(), DocumentContent(blocks: [table]))])
        let hits = index.search(try SearchQuery(parsing: "\"grey boat\"")).hits
        #expect(hits.count == 1 && hits[0].matches == 1 && hits[0].blocks[0].snippet == "grey boat", "\(hits)")
    }

    @Test("a prefix finds every word that starts with it, and only those")
    func prefix() throws {
        let index = try Self.index(Self.corpus)
        #expect(try Self.found("harb*", in: index) == [0, 1])
        #expect(try Self.found("harbourm*", in: index) == [1])
        #expect(try Self.found("harx*", in: index) == [])
        #expect(try Self.found("harb", in: index) == [])
    }

    @Test("case and diacritics do not matter, in the text or in the query, composed or decomposed")
    func caseAndDiacritics() throws {
        let index = try Self.index(Self.corpus + [["cafe\u{301} cre\u{300}me"]])
        #expect(try Self.found("eclair", in: index) == [2])
        #expect(try Self.found("ÉCLAIR", in: index) == [2])
        #expect(try Self.found("café", in: index) == [2, 3])
        #expect(try Self.found("\"CAFE\u{301} cre\u{300}me\"", in: index) == [3])
        #expect(try Self.found("crem*", in: index) == [3])
    }

    @Test("no match gives no documents; an empty project none")
    func noMatch() throws {
        #expect(try Self.found("lighthouse", in: try Self.index(Self.corpus)) == [])
        #expect(try Self.found("boat", in: try Self.index([])) == [])
    }

    @Test("each hit lists the matching blocks in order, with a snippet in the text's own spelling")
    func hitsAndSnippets() throws {
        let long = "One two three four five six seven eight harbour nine ten eleven twelve thirteen fourteen fifteen sixteen."
        let index = try Self.index([["The grey boat came into the harbour.", "No match here.", long]])
        let hit = try #require(index.search(try SearchQuery(parsing: "HARBOUR")).hits.first)
        #expect(hit.blocks.map(\.snippet) == ["…grey boat came into the harbour.",
                                              "…four five six seven eight harbour nine ten eleven twelve thirteen fourteen fifteen…"], "\(hit)")
        #expect(hit.blocks.map(\.block) == [index.documents[0].blocks[0].id, index.documents[0].blocks[2].id])
        #expect(hit.matches == 2)
    }

    @Test("a query matching more documents than the limit gives the first ones in reading order and counts all; a document shows its first three matching blocks and counts the rest")
    func boundedResults() throws {
        let texts = (0..<6).map { number in (0..<5).map { "grey water \(number) block \($0), grey again" } }
        let index = try Self.index(texts)
        let results = index.search(try SearchQuery(parsing: "grey"), limit: 4)
        #expect(results.total == 6)
        #expect(results.hits.map(\.document) == Array(index.documents.prefix(4).map(\.id)), "the first four, in reading order")
        let hit = try #require(results.hits.first)
        #expect(hit.blocks.count == SearchHit.maximumSnippets && hit.matchedBlocks == 5, "\(hit)")
        #expect(hit.blocks.map(\.block) == index.documents[0].blocks.prefix(3).map(\.id))
        #expect(hit.matches == 10 && hit.blocks.allSatisfy { $0.matches == 2 }, "every match counted, shown or not: \(hit)")
        #expect(index.search(try SearchQuery(parsing: "grey"), limit: 10).hits.count == 6)
        #expect(index.search(try SearchQuery(parsing: "\"water 5\""), limit: 1).hits.map(\.document) == [index.documents[5].id])
    }

    @Test("a query parses into words, prefixes and phrases; punctuation inside a term makes a phrase")
    func parses() throws {
        let query = try SearchQuery(parsing: "  Boat  harb* \"grey  BOAT\" don't ")
        #expect(query.terms == [.word("boat"), .prefix("harb"), .phrase(["grey", "boat"]), .phrase(["don", "t"])])
    }

    @Test("malformed queries are refused with the reason", arguments: [
        ("", "has no words"),
        ("   ", "has no words"),
        ("\"grey boat", "never closed"),
        ("boat \"\"", "has no letters or digits"),
        ("---", "has no letters or digits"),
        ("ha*r", "does not end a single word"),
        ("\"harb*\"", "does not end a single word"),
        ("grey-bo*", "does not end a single word"),
        ("h*", "shorter than 2 characters"),
        ("boat\u{0}x", "control character at character 5"),
        ("boat\nquay", "control character"),
    ])
    func refused(query: String, reason: String) throws {
        let error = #expect(throws: WritingError.self) { try SearchQuery(parsing: query) }
        #expect(error?.code == .invalidQuery && error?.message.contains(reason) == true, "\(String(describing: error?.message))")
        #expect(error?.message.contains(query.isEmpty ? "\u{1}" : query) == false, "a refusal never quotes the query")
    }

    @Test("a query is bounded: its length, its number of terms and its phrases' words")
    func bounded() throws {
        let long = String(repeating: "a", count: SearchQuery.maximumBytes + 1)
        let errors = [long,
                      Array(repeating: "boat", count: SearchQuery.maximumTerms + 1).joined(separator: " "),
                      "\"" + Array(repeating: "boat", count: SearchQuery.maximumPhraseWords + 1).joined(separator: " ") + "\""]
            .map { query in #expect(throws: WritingError.self) { try SearchQuery(parsing: query) } }
        #expect(errors[0]?.message.contains("at most \(SearchQuery.maximumBytes) are accepted") == true)
        #expect(errors[1]?.message.contains("at most \(SearchQuery.maximumTerms) terms") == true)
        #expect(errors[2]?.message.contains("at most \(SearchQuery.maximumPhraseWords)") == true)
        #expect(throws: Never.self) { try SearchQuery(parsing: Array(repeating: "boat", count: SearchQuery.maximumTerms).joined(separator: " ")) }
    }

    @Test("the store searches a project's documents in reading order and records writing.search with only the count")
    func storeSearch() throws {
        let fixture = try WritingFixture()
        let project = try fixture.project()
        let ids = try fixture.store { store in
            try (0..<3).map { number -> NodeID in
                let node = try store.addNode(.scene, titled: "Part \(number)", in: project.id)
                try store.replaceDocumentContent(of: node.id, in: project.id, with: try WritingFixture.paragraphs(Self.corpus[number]))
                return node.id
            }
        }
        let hits = try fixture.store { try $0.search(try SearchQuery(parsing: "boat"), in: project.id) }.hits
        #expect(hits.map(\.document) == [ids[0], ids[1]])
        #expect(fixture.vault.recording.batches.withLock { $0.last } == ["record.open", "writing.search"], "one read of every block, then the search")
        let entry = try #require(fixture.vault.recording.events.withLock { $0.last })
        #expect(entry.action == .writingSearch && entry.subjectID == project.id.bytes && entry.details == [.init("hits", "2")])
        let limited = try fixture.store { try $0.search(try SearchQuery(parsing: "boat"), in: project.id, limit: 1) }
        #expect(limited.total == 2 && limited.hits.map(\.document) == [ids[0]])
        let limitedEntry = try #require(fixture.vault.recording.events.withLock { $0.last })
        #expect(limitedEntry.details == [.init("hits", "2")], "the count recorded is of every document found, not of those shown")
    }

    @Test("a search stores nothing: every writing table and sealed record is as it was before it")
    func storesNothing() throws {
        let fixture = try WritingFixture()
        let project = try fixture.project()
        try fixture.store { store in
            let node = try store.addNode(.scene, titled: "Arrival", in: project.id)
            try store.replaceDocumentContent(of: node.id, in: project.id, with: try WritingFixture.paragraphs(Self.corpus[0]))
        }
        let before = try fixture.storeState()
        #expect(try fixture.store { try $0.search(try SearchQuery(parsing: "\"grey boat\" harb*"), in: project.id) }.hits.count == 1)
        #expect(try fixture.storeState() == before)
    }

    @Test("a privileged project is searched only in a session of its compartment, even an empty one")
    func privilegedNeedsASession() throws {
        let fixture = try WritingFixture()
        let project = try fixture.project("Intake", register: .healthcare, kind: .document)
        let query = try SearchQuery(parsing: "insomnia")
        let refused = #expect(throws: WritingError.self) { try fixture.store { try $0.search(query, in: project.id) } }
        #expect(refused?.code == .privilegedSessionRequired)
        let session = try fixture.session(of: project)
        try fixture.store(.session(session)) { store in
            let node = try store.addNode(.scene, titled: "Session 1", in: project.id)
            try store.replaceDocumentContent(of: node.id, in: project.id, with: try WritingFixture.paragraphs(["Reports insomnia."]))
        }
        #expect(try fixture.store(.session(session)) { try $0.search(query, in: project.id) }.hits.count == 1)
    }
}
