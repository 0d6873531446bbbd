import CryptoVault
import Testing
import TestSupport
@testable import Sync
import Writing

/// A received 0x03 must name a conflict the records in its record's past make (attack review of
/// issue 17, finding 4; SECURITY.md §19.4). A forged one (a paired device that writes the project
/// putting words of its choosing in an unattributed sync-conflict branch on every device) is
/// refused as `unfoundedConflict`, recorded, and makes no branch; an honest device's 0x03 for a
/// conflict it met is taken.
@Suite struct ConflictClaimTests: SyncedVaultFixture {
    let vault: TestVault
    let project: WritingProject
    let author: SyncAuthor
    let peer: SyncAuthor

    init() throws { (vault, project, author, peer) = try Self.makeSyncedVault(project: "Case memo") }

    /// Two documents written in the vault, committed, and received by the peer.
    func start() throws -> (documents: [NodeID], blocks: [Block], peer: SyncReplica) {
        let blocks = try ["facts", "argument"].map { Block(id: try BlockID.random(), kind: .paragraph, text: $0) }
        let documents = try store { store in
            try ["Memo", "Notes"].enumerated().map { index, title in
                let node = try store.addNode(.scene, titled: title, in: project.id)
                try store.replaceDocumentContent(of: node.id, in: project.id, with: DocumentContent(blocks: [blocks[index]]))
                return node.id
            }
        }
        let record = try #require(try sync { try $0.commitLocalChanges(in: project.id) })
        var replica = SyncReplica(project: project.id, author: peer, devices: devices)
        #expect(replica.receive(record.encoded) == .applied(1))
        return (documents, blocks, replica)
    }

    func forged(_ branch: BranchID, document: NodeID, block: BlockID, text: String) -> ChangeOperation {
        .conflict(SyncConflict(branch: branch, document: document, block: block,
                               losing: .present(orderKey: "1k", block: Block(id: block, kind: .paragraph, text: text)),
                               winning: .present(orderKey: "1k", block: Block(id: block, kind: .paragraph, text: "facts"))))
    }

    func branchCount(_ documents: [NodeID]) throws -> Int {
        try store { store in try documents.reduce(0) { $0 + (try store.branches(of: $1, in: project.id).count) } }
    }

    func refusals() -> [[String: String]] {
        vault.recording.events.withLock { events in
            events.filter { $0.action == .syncRecordRefused }.map { Dictionary($0.details.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a }) }
        }
    }

    @Test func aConflictNoRecordMakesIsRefusedRecordedAndMakesNoBranch() throws {
        var (documents, blocks, replica) = try start()
        let record = try replica.commit([forged(try BranchID.random(), document: documents[0], block: blocks[0].id,
                                                text: "the client admitted everything")])
        let receipt = try sync { try $0.receive([record.encoded], for: project.id) }
        #expect(receipt.stored == 0 && receipt.refused.map(\.error.code) == [.unfoundedConflict], "\(receipt)")
        #expect(receipt.refused.first?.error.message.contains("which the records it follows do not make") == true)
        #expect(refusals() == [["reason": "unfoundedConflict", "hash": ByteEncoding.hex(record.hash), "device": peer.device.hex]])
        #expect(try branchCount(documents) == 0)
        #expect(!vault.recording.actions.contains("sync.conflict-branch"))
    }

    @Test func aConflictOverABlockOfAnotherDocumentIsRefused() throws {
        var (documents, blocks, replica) = try start()
        // A name the records do make (the block's own first write) cannot move to another document.
        let first = try #require(replica.records(missingFrom: [:]).first)
        let real = SyncConflict.branchID("SealedVault sync conflict v1", blocks[0].id.bytes + first.hash)
        let record = try replica.commit([forged(real, document: documents[1], block: blocks[0].id, text: "moved words")])
        let receipt = try sync { try $0.receive([record.encoded], for: project.id) }
        #expect(receipt.refused.map(\.error.code) == [.unfoundedConflict], "\(receipt)")
        #expect(receipt.refused.first?.error.message.contains("which no record it follows writes") == true)
        #expect(try branchCount(documents) == 0)
    }

    @Test func anHonestDevicesConflictRecordIsTaken() throws {
        var (documents, blocks, replica) = try start()
        let theirs = try #require(try replica.edit(documents[0], to: DocumentContent(blocks: [Block(id: blocks[0].id, kind: .paragraph, text: "desk words")])))
        try store { try $0.replaceDocumentContent(of: documents[0], in: project.id,
                                                  with: DocumentContent(blocks: [Block(id: blocks[0].id, kind: .paragraph, text: "laptop words")])) }
        let ours = try #require(try sync { try $0.commitLocalChanges(in: project.id) })
        replica.receive(ours.encoded)
        let carrying = try #require(try replica.edit(documents[1], to: DocumentContent(blocks: [Block(id: blocks[1].id, kind: .paragraph, text: "argument, later")])))
        #expect(carrying.operations.contains { if case .conflict = $0 { true } else { false } }, "the peer's next record records the conflict it met")
        let receipt = try sync { try $0.receive([theirs.encoded, carrying.encoded], for: project.id) }
        #expect(receipt.stored == 2 && receipt.refused.isEmpty, "\(receipt)")
        #expect(try branchCount(documents) >= 1)
    }

    /// Attack review s6, A10: a paired editor holding a genuine conflict records it by its true
    /// name but with other losing words (deleted: the least encoding; or its own), in a record of
    /// its own. The name passes (the conflict is real); the words are never what the branch
    /// proposes: every branch keeps the words the losing side's record wrote.
    @Test(arguments: [false, true])
    func aGenuineConflictRecordedWithOtherWordsKeepsTheRecordsWordsInItsBranch(ownWords: Bool) throws {
        var (documents, blocks, replica) = try start()
        let theirs = try #require(try replica.edit(documents[0], to: DocumentContent(blocks: [Block(id: blocks[0].id, kind: .paragraph, text: "desk words")])))
        try store { try $0.replaceDocumentContent(of: documents[0], in: project.id,
                                                  with: DocumentContent(blocks: [Block(id: blocks[0].id, kind: .paragraph, text: "laptop words")])) }
        let ours = try #require(try sync { try $0.commitLocalChanges(in: project.id) })
        replica.receive(ours.encoded)
        // Pending there (no join yet): the forged record is the join that records it (§19.3).
        let met = replica.pendingConflicts
        #expect(met.count == 1, "one block changed on both sides: one conflict (its losing head), \(met)")
        let words: (SyncConflict) -> BlockValue = { conflict in
            ownWords ? .present(orderKey: "1k", block: Block(id: conflict.block, kind: .paragraph, text: "the editor's own words")) : .deleted
        }
        let forged = try replica.commit(met.map { .conflict(SyncConflict(branch: $0.branch, document: $0.document, block: $0.block,
                                                                          losing: words($0), winning: $0.winning)) },
                                        carryingConflicts: false)

        let receipt = try sync { try $0.receive([theirs.encoded, forged.encoded], for: project.id) }
        #expect(receipt.stored == 2 && receipt.refused.isEmpty, "a genuine name is taken: \(receipt)")
        let branches = try store { try $0.branches(of: documents[0], in: project.id) }
        let texts = try Set(branches.map { branch in try store { try $0.branchContent(branch.id, of: documents[0], in: project.id) }.blocks.map(\.text) })
        #expect(texts == Set(met.compactMap { $0.losing.block.map { [$0.text] } }), "\(texts)")
        #expect([[["desk words"]], [["laptop words"]]].contains(texts), "\(texts)")
        // The forger's own replica, holding its record, lists the records' words too.
        #expect(Set(replica.conflicts().map(\.losing)) == Set(met.map(\.losing)))
    }

    // MARK: Names of conflicts the records do not make (attack review s8, N5)

    /// One device moves a paragraph ("facts" after "more") while the other edits its text: a move
    /// and an edit merge (the order key is no content), no conflict. Returns the fleet (device 1
    /// holding both) and A's and B's records.
    static func writesThatMerge() throws -> (fleet: SyncFleet, document: NodeID, block: BlockID, a: ChangeRecord, b: ChangeRecord) {
        var fleet = try SyncFleet(devices: 2)
        var generator = SeededGenerator(seed: 5)
        let (document, _) = try fleet.replicas[0].createDocument(titled: "Memo")
        let facts = Block(id: try BlockID.random(), kind: .paragraph, text: "facts"), more = Block(id: try BlockID.random(), kind: .paragraph, text: "more")
        _ = try fleet.replicas[0].edit(document, to: DocumentContent(blocks: [facts, more]))
        fleet.sync(from: 0, to: 1, shuffle: &generator)
        let a = try #require(try fleet.replicas[0].edit(document, to: DocumentContent(blocks: [more, facts])))
        var edited = facts
        edited.text = "facts here"
        let b = try #require(try fleet.replicas[1].edit(document, to: DocumentContent(blocks: [edited, more])))
        fleet.sync(from: 0, to: 1, shuffle: &generator)
        #expect(fleet.replicas[1].content(of: document).blocks.map(\.text) == ["more", "facts here"])
        #expect(fleet.replicas[1].conflicts().isEmpty && fleet.replicas[1].pendingConflicts.isEmpty)
        return (fleet, document, facts.id, a, b)
    }

    /// A 0x03 in a version-2 record whose name hashes a real write (the v2 name of the move), or
    /// the earlier rule's text name of the two writes, while those records make no conflict:
    /// refused with its reason, no branch. Before, the forger's words were proposed.
    @Test(arguments: ["v2 write", "v1 text"])
    func aNameOfWritesThatMergeIsRefused(kind: String) throws {
        var (fleet, document, block, a, b) = try Self.writesThatMerge()
        let name = kind == "v2 write" ? SyncConflict.branchID("SealedVault block conflict v2", block.bytes + a.hash)
            : SyncConflict.branchID("SealedVault text conflict v1", block.bytes + a.hash + b.hash)
        fleet.replicas[1].checksConflictClaims = false  // a hostile device does not check its own
        let forged = try fleet.replicas[1].commit([.conflict(SyncConflict(
            branch: name, document: document, block: block,
            losing: .present(orderKey: "1k", block: Block(id: block, kind: .paragraph, text: "the client admitted everything")),
            winning: .deleted))], carryingConflicts: false)
        #expect(forged.version == 2)

        var generator = SeededGenerator(seed: 7)
        fleet.sync(from: 1, to: 0, shuffle: &generator)
        let refusals = fleet.replicas[0].refusals
        #expect(refusals.map(\.error.code) == [.unfoundedConflict], "\(refusals)")
        #expect(refusals.first?.record == forged.hash)
        #expect(refusals.first?.error.message.contains("which the records it follows do not make") == true, "\(refusals)")
        #expect(!fleet.replicas[0].contains(forged.hash) && fleet.replicas[0].contains(b.hash))
        #expect(fleet.replicas[0].conflicts().isEmpty)
    }

    /// A version-1 record (made under the earlier rule) carrying a 0x03: read, its 0x03 ignored
    /// (not refused, no conflict, no words taken from it), merge-design §1.7.
    @Test func aVersionOneRecordsConflictIsIgnored() throws {
        var (fleet, document, block, _, _) = try Self.writesThatMerge()
        let replica = fleet.replicas[1], author = try #require(replica.author)
        let parents = replica.history.heads.map { replica.history.entries[$0].record.hash }.sorted { $0.lexicographicallyPrecedes($1) }
        let counter = replica.history.counter(of: author.device) + 1, lamport = replica.history.maximumLamport + 1
        let operations: [ChangeOperation] = [.conflict(SyncConflict(
            branch: try BranchID.random(), document: document, block: block,
            losing: .present(orderKey: "1k", block: Block(id: block, kind: .paragraph, text: "the client admitted everything")), winning: .deleted))]
        let body = try ChangeRecordCodec.body(project: replica.project, device: author.device, counter: counter, lamport: lamport,
                                              parents: parents, operations: operations, version: 1)
        let signature = try author.key.signature(for: ChangeRecordCodec.signingInput(body))
        let old = try ChangeRecordCodec.parse(body + signature)
        #expect(old.version == 1)
        #expect(fleet.replicas[0].receive(fleet.replicas[1].records(missingFrom: fleet.replicas[0].versionVector)[0].encoded) == .applied(1))
        #expect(fleet.replicas[0].receive(old.encoded) == .applied(1))
        #expect(fleet.replicas[0].refusals.isEmpty, "\(fleet.replicas[0].refusals)")
        #expect(fleet.replicas[0].conflicts().isEmpty)
        #expect(fleet.replicas[0].content(of: document).blocks.map(\.text) == ["more", "facts here"])
    }

    /// An honest 0x03 of a register conflict whose losing write has a higher-ranked rival the
    /// recording device had not seen: founded by the rival it had (a conflict is a fact of two
    /// records, so the check asks the record's past, not the receiver's highest rival). Three
    /// devices change one paragraph at once; the two lowest-ranked meet, and the middle one records
    /// the conflict the lowest loses; the highest-ranked device, holding its own write, takes it.
    @Test func anHonestConflictWhoseLosersHighestRivalCameLaterIsTaken() throws {
        var fleet = try SyncFleet(devices: 3)
        var generator = SeededGenerator(seed: 8)
        let (document, _) = try fleet.replicas[0].createDocument(titled: "Memo")
        let blocks = try ["one", "two", "three"].map { Block(id: try BlockID.random(), kind: .paragraph, text: $0) }
        _ = try fleet.replicas[0].edit(document, to: DocumentContent(blocks: blocks))
        fleet.sync(from: 0, to: 1, shuffle: &generator)
        fleet.sync(from: 0, to: 2, shuffle: &generator)
        // At the same Lamport time (so ranked by device id), two devices move "three" to two places
        // and the third deletes it: every two of the three writes conflict.
        let changed = [[blocks[2], blocks[0], blocks[1]], [blocks[0], blocks[2], blocks[1]], [blocks[0], blocks[1]]]
        for device in 0..<3 { _ = try fleet.replicas[device].edit(document, to: DocumentContent(blocks: changed[device])) }
        let byRank = (0..<3).sorted { fleet.replicas[$0].author!.device.bytes.lexicographicallyPrecedes(fleet.replicas[$1].author!.device.bytes) }
        let (lowest, middle, highest) = (byRank[0], byRank[1], byRank[2])
        fleet.sync(from: lowest, to: middle, shuffle: &generator)
        #expect(!fleet.replicas[middle].conflicts().isEmpty, "the two moves conflict")
        // The middle device's join (SyncFleet joins after a receive, as the vault does).
        let carrying = try #require(fleet.replicas[middle].records(missingFrom: [:]).last)
        #expect(carrying.operations.contains { if case .conflict = $0 { true } else { false } })
        // The highest-ranked device holds its own write (the losing write's highest rival, which
        // the carrying record had not seen), then the rest.
        fleet.sync(from: lowest, to: highest, shuffle: &generator)
        fleet.sync(from: middle, to: highest, shuffle: &generator)
        #expect(fleet.replicas[highest].refusals.isEmpty, "\(fleet.replicas[highest].refusals)")
        #expect(fleet.replicas[highest].contains(carrying.hash))
    }
}
