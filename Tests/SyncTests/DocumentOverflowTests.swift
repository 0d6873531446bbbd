import CryptoVault
import Testing
import TestSupport
@testable import Sync
import Writing

/// Two devices adding to one document while apart can merge it past what the writing store keeps
/// in a document (`WritingLimits.maximumStoredDocumentBytes`, 16 MiB): every device shows the blocks
/// that fit and keeps the rest in overflow branches it names alike (SECURITY.md §19.3,
/// `DocumentOverflow`), so no device refuses the other's records and no word is lost (review 17 s8,
/// F12). Before the rule the store refused the merged document (`documentTooLarge`) and the receive
/// with it, on both sides, at every exchange.
@Suite struct DocumentOverflowTests {
    /// merge-cases.json's `document_overflow` known answers (written by the independent sync_merge.py).
    struct File: Decodable {
        struct Case: Decodable {
            struct Listed: Decodable {
                let block: String
                let kind: String
                let rows: [[String]]
                let bytes: Int
                let sha256: String
            }

            struct Overflow: Decodable {
                let name: String
                let blocks: [Listed]
                let contentSha256: String
            }

            let name: String
            let document: String
            let blocks: [BlockOverflowTests.File.Case.Given]
            let keeping: String?
            let shown: [Listed]
            let branches: [Overflow]
        }

        let documentOverflow: [Case]
    }

    static func listed(_ blocks: [Block]) -> [String] {
        blocks.map { "\($0.id.hex) \(BlockEncoding.name(of: $0.kind)) \($0.rows) \($0.text.utf8.count) \(ByteEncoding.hex(SHA256.hash(Array($0.text.utf8))))" }
    }

    static func listed(_ blocks: [File.Case.Listed]) -> [String] {
        blocks.map { "\($0.block) \($0.kind) \($0.rows) \($0.bytes) \($0.sha256)" }
    }

    /// The rule at the production bound, 16 MiB, against the independent replay's answers: what a
    /// document shows, and its overflow branches' names and proposals.
    @Test func theRuleIsTheIndependentReplaysKnownAnswers() throws {
        let file: File = try PackageFiles.decode("testvectors/sync/merge-cases.json", keys: .convertFromSnakeCase)
        #expect(file.documentOverflow.count >= 7)
        #expect(DocumentOverflow.bound == 16 * 1024 * 1024)
        for vector in file.documentOverflow {
            let blocks = try vector.blocks.map { given in
                Block(id: try BlockID(hex: given.block), kind: try #require(BlockEncoding.kind(named: given.kind)),
                      text: given.runs.map { String(repeating: $0.text, count: $0.count) }.joined(), rows: given.rows)
            }
            let ids = Set(blocks.map(\.id))
            let parted = DocumentOverflow.parted(blocks, keeping: try vector.keeping.map { try BlockID(hex: $0) })
            #expect(Self.listed(BlockOverflow.split(parted.shown) { ids.contains($0) }) == Self.listed(vector.shown), "\(vector.name)")
            let document = try NodeID(hex: vector.document)
            let groups = vector.keeping == nil ? DocumentOverflow.groups(BlockOverflow.split(parted.past) { ids.contains($0) }) : []
            #expect(groups.map { DocumentOverflow.name(of: document, proposing: $0).hex } == vector.branches.map(\.name), "\(vector.name)")
            #expect(groups.map { Self.listed($0.blocks) } == vector.branches.map { Self.listed($0.blocks) }, "\(vector.name)")
            #expect(groups.map { ByteEncoding.hex(SHA256.hash(SnapshotContent.encode($0))) } == vector.branches.map(\.contentSha256), "\(vector.name)")
            // What is shown is within the bound (but a proposal's kept block), and nothing is lost.
            #expect(groups.allSatisfy { $0.blocks.reduce(0) { $0 + BlockOverflow.bytes(of: $1) } <= DocumentOverflow.bound }, "\(vector.name)")
            if vector.keeping == nil {
                #expect(parted.shown.reduce(0) { $0 + BlockOverflow.bytes(of: $1) } <= DocumentOverflow.bound, "\(vector.name)")
                #expect((parted.shown + parted.past).map(\.id) == blocks.map(\.id), "\(vector.name)")
            }
        }
    }

    /// `count` paragraphs of 102,400 bytes, each named `label` and its number, the rest four-byte
    /// letters (few characters for their bytes: a replica keeps each character ever typed).
    static func paragraphs(_ label: String, _ count: Int) throws -> [Block] {
        try (0..<count).map { index in
            let name = "\(label)\(index) "
            let letters = String(repeating: "\u{1D4D0}", count: (102_400 - name.utf8.count) / 4)
            return Block(id: try BlockID.random(), kind: .paragraph, text: name + letters)
        }
    }

    static func bytes(_ blocks: [Block]) -> Int { blocks.reduce(0) { $0 + BlockOverflow.bytes(of: $1) } }

    /// The case on two real vaults: a document of 9 MiB on both devices, then 7 MB more on
    /// each while apart (each side's records keep it within 16 MiB; merged it is 22.7 MiB). Both take
    /// the other's records, show the same document byte for byte within the bound, keep the rest in
    /// one overflow branch named alike (an open sync conflict, as `vaultctl conflicts` lists), and
    /// every paragraph either wrote is in the document or the branch, once, in reading order; nothing
    /// is refused, and the records hold every block (a commit of what the store shows deletes none).
    /// Then the owner deletes ten paragraphs: blocks past the bound come into the document on both.
    @Test func twoDevicesAddingPastTheDocumentBoundWhileApartConvergeAndLoseNoWord() throws {
        let fleet = try VersionFleet(devices: 2)
        let common = try Self.paragraphs("c", 92), desk = try Self.paragraphs("d", 70), tablet = try Self.paragraphs("t", 70)
        #expect(Self.bytes(common) > 9_000_000 && Self.bytes(common + desk) <= WritingLimits.maximumStoredDocumentBytes)
        let document = try fleet.store(0) { store in
            let node = try store.addNode(.scene, titled: "Visit notes", in: fleet.project)
            try store.replaceDocumentContent(of: node.id, in: fleet.project, with: DocumentContent(blocks: common))
            return node.id
        }
        try fleet.sync(from: 0, to: 1)
        try fleet.store(0) { try $0.replaceDocumentContent(of: document, in: fleet.project, with: DocumentContent(blocks: common + desk)) }
        try fleet.store(1) { try $0.replaceDocumentContent(of: document, in: fleet.project, with: DocumentContent(blocks: tablet + common)) }
        // Each receive threw documentTooLarge before the rule (the batch refused, writingRefused).
        let receipts = [try fleet.sync(from: 0, to: 1), try fleet.sync(from: 1, to: 0)]
        #expect(receipts.map(\.branchesMade) == [1, 1])

        let everything = tablet + common + desk  // reading order: the tablet's before, the desk's after
        let shown = try (0..<2).map { try fleet.content(document, on: $0) }
        #expect(SHA256.hash(SnapshotContent.encode(shown[0])) == SHA256.hash(SnapshotContent.encode(shown[1])))
        #expect(Self.bytes(shown[0].blocks) <= WritingLimits.maximumStoredDocumentBytes)
        #expect(shown[0].blocks.count == 163, "every paragraph that fits, from the start")
        let branches = try (0..<2).map { device in
            try fleet.branches(document, on: device).filter { $0.kind == .syncConflict && $0.state == .open }
        }
        #expect(branches[0].count == 1 && branches[0].map(\.id) == branches[1].map(\.id), "one overflow branch, named alike")
        #expect(branches[0].first?.provenance == VaultSync.overflowProvenance)
        let branch = try #require(branches[0].first)
        let proposals = try (0..<2).map { device in try fleet.store(device) { try $0.branchContent(branch.id, of: document, in: fleet.project) } }
        #expect(proposals[0] == proposals[1])
        #expect(shown[0].blocks + proposals[0].blocks == everything, "every paragraph once, in the document or the branch")
        // The records hold every block: what the store shows is no deletion.
        for device in 0..<2 {
            var replica = try fleet.sync(device) { try $0.replica(of: fleet.project) }
            #expect(replica.orderedBlocks(of: document).map(\.block) == everything)
            #expect(try replica.operations(making: document, hold: shown[device]).isEmpty)
            #expect(replica.overflow(of: document).map(\.name) == [branch.id])
        }

        // The owner deletes ten of the tablet's paragraphs on the desk: ten of the desk's come into the
        // document on both devices, the rest in a new overflow branch, alike.
        try fleet.store(0) { try $0.replaceDocumentContent(of: document, in: fleet.project, with: DocumentContent(blocks: Array(shown[0].blocks.dropFirst(10)))) }
        try fleet.sync(from: 0, to: 1)
        let remaining = Array(everything.dropFirst(10))
        let after = try (0..<2).map { try fleet.content(document, on: $0) }
        #expect(after[0] == after[1])
        #expect(after[0].blocks == Array(remaining.prefix(163)))
        let newest = try (0..<2).map { device in
            try fleet.branches(document, on: device).filter { $0.kind == .syncConflict && $0.state == .open && $0.id != branch.id }
        }
        #expect(newest[0].count == 1 && newest[0].map(\.id) == newest[1].map(\.id))
        let rest = try fleet.store(1) { try $0.branchContent(try #require(newest[1].first).id, of: document, in: fleet.project) }
        #expect(after[0].blocks + rest.blocks == remaining, "the ten paragraphs deleted, every other one kept")
    }

    /// The records of two devices' additions past the bound, taken in other orders (one device's
    /// first, one record per exchange, or all at once in reverse): the same document and the same
    /// overflow branches, whatever the order (a function of the records alone).
    @Test func theOrderOfArrivalDoesNotMatter() throws {
        let project = try ProjectID.random()
        let authors = try (0..<2).map { _ in try SyncAuthor.random() }
        let keys = Dictionary(uniqueKeysWithValues: authors.map { ($0.device, $0.key.publicKey) })
        var desk = SyncReplica(project: project, author: authors[0], devices: keys)
        var tablet = SyncReplica(project: project, author: authors[1], devices: keys)
        let (document, _) = try desk.createDocument(titled: "Visit notes")
        let common = try Self.paragraphs("c", 92), mine = try Self.paragraphs("d", 70), theirs = try Self.paragraphs("t", 70)
        // At most 30 paragraphs a record (a record holds 4 MiB).
        func add(_ blocks: [Block], to replica: inout SyncReplica, atStart: Bool) throws {
            let starts = Array(stride(from: 0, to: blocks.count, by: 30))
            for start in atStart ? Array(starts.reversed()) : starts {
                let chunk = Array(blocks[start..<min(start + 30, blocks.count)])
                let shown = replica.content(of: document).blocks
                _ = try replica.edit(document, to: DocumentContent(blocks: atStart ? chunk + shown : shown + chunk))
            }
        }
        try add(common, to: &desk, atStart: false)
        for record in desk.records(missingFrom: [:]) { _ = tablet.receive(record.encoded) }
        tablet.endExchange()
        let shared = tablet.versionVector
        try add(mine, to: &desk, atStart: false)
        try add(theirs, to: &tablet, atStart: true)
        let deskOnly = desk.records(missingFrom: shared), tabletOnly = tablet.records(missingFrom: shared)
        for record in tabletOnly { _ = desk.receive(record.encoded) }
        desk.endExchange()
        for record in deskOnly { _ = tablet.receive(record.encoded) }
        tablet.endExchange()

        var oneByOne = SyncReplica(project: project, author: nil, devices: keys)
        let later = Set((deskOnly + tabletOnly).map(\.hash))
        for record in desk.records(missingFrom: [:]).filter({ !later.contains($0.hash) }) + tabletOnly + deskOnly {
            _ = oneByOne.receive(record.encoded)
            oneByOne.endExchange()
        }
        var reversed = SyncReplica(project: project, author: nil, devices: keys)
        for record in desk.records(missingFrom: [:]).reversed() { _ = reversed.receive(record.encoded) }
        reversed.endExchange()

        let everything = theirs + common + mine
        #expect(desk.orderedBlocks(of: document).map(\.block) == everything)
        let content = desk.content(of: document), overflow = desk.overflow(of: document)
        #expect(content.blocks.count == 163 && overflow.count == 1)
        #expect(content.blocks + overflow.flatMap(\.content.blocks) == everything)
        for var other in [tablet, oneByOne, reversed] {
            #expect(other.recordCount == desk.recordCount)
            #expect(other.content(of: document) == content)
            #expect(other.overflow(of: document).map(\.name) == overflow.map(\.name))
            #expect(other.overflow(of: document).map(\.content) == overflow.map(\.content))
        }
        // A commit of what a device shows deletes nothing past the bound.
        #expect(try desk.edit(document, to: content) == nil)
    }
}
