import CryptoVault
import Testing
import TestSupport
@testable import Writing

/// A sync conflict's branch of one block (SECURITY.md §15.3, record version 2): stored as the delta
/// from its base that writes that block, read back whole, adopted by writing that block alone into
/// the document as it is now, and refused when it would change anything else.
@Suite struct OneBlockBranchTests {
    typealias Setting = BranchStoreTests.Setting

    static let start = ["Dose is 5 mg.", "Review in a week.", String(repeating: "History taken at intake. ", count: 400)]

    /// The base with block `index` of it made `text`, proposed as a branch of that one block.
    static func propose(_ setting: Setting, _ index: Int, _ text: String, kind: BranchKind = .syncConflict) throws -> (Branch, DocumentContent) {
        let base = try setting.store { try $0.snapshotContent(setting.base.id, of: $2, in: $1) }
        let proposal = BranchStoreTests.edited(base, index, to: text)
        let branch = try setting.store {
            try $0.createBranch(of: $2, in: $1, base: setting.base.id, content: proposal, kind: kind,
                                provenance: "sync conflict over block \(base.blocks[index].id.hex)", block: base.blocks[index].id)
        }
        return (branch, proposal)
    }

    @Test func aOneBlockBranchIsStoredAsThatBlockAndReadBackWhole() throws {
        let setting = try Setting(try WritingFixture.paragraphs(Self.start))
        let (branch, proposal) = try Self.propose(setting, 1, "Review in a month.")
        #expect(try setting.store { try $0.branchContent(branch.id, of: $2, in: $1) } == proposal)
        // The sealed value holds the changed block, not another copy of the 10 KB paragraph.
        let record = try setting.store { store, project, _ in
            try BranchRecord(parsing: Array(try store.open([try WritingRecord.branchPart(branch.id, 0)], of: try store.project(project)) { _, bytes in [UInt8](bytes) }.joined()))
        }
        #expect(record.block == proposal.blocks[1].id)
        #expect(record.encoded().count < 200, "\(record.encoded().count) bytes")
        #expect(record.encoded()[0] == 2)
    }

    @Test func adoptingItWritesThatBlockAloneIntoTheDocumentAsItIsNow() throws {
        let setting = try Setting(try WritingFixture.paragraphs(Self.start))
        let (branch, _) = try Self.propose(setting, 1, "Review in a month.")
        // Edited since the base, in another block: that edit stays.
        let now = BranchStoreTests.edited(try setting.store { try $0.documentContent(of: $2, in: $1) }, 0, to: "Dose is 10 mg.")
        try setting.write(now)
        let adopted = try setting.store { try $0.adoptConflictBlock(branch.id, of: $2, in: $1) }
        let content = try setting.store { try $0.documentContent(of: $2, in: $1) }
        #expect(content.blocks.map(\.text) == ["Dose is 10 mg.", "Review in a month.", Self.start[2]])
        #expect(adopted.origin == .adopt)
        let row = try setting.store { try $0.branch(branch.id, of: $2, in: $1) }
        #expect(row.state == .adopted && row.adoption == adopted.id)
        // The version before it is kept: a revert gives it back.
        try setting.store { _ = try $0.revert(branch.id, of: $2, in: $1) }
        #expect(try setting.store { try $0.documentContent(of: $2, in: $1) } == now)
    }

    @Test func adoptOfAOneBlockBranchIsBlockScopedToo() throws {
        let setting = try Setting(try WritingFixture.paragraphs(Self.start))
        let (branch, _) = try Self.propose(setting, 1, "Review in a month.")
        try setting.write(BranchStoreTests.edited(try setting.store { try $0.documentContent(of: $2, in: $1) }, 1, to: "Review tomorrow."))
        // Both changed block 2 since the base: a whole-document merge would refuse; the block is written.
        #expect(try setting.store { try $0.adoptionConflicts(branch.id, of: $2, in: $1) }.isEmpty)
        try setting.store { _ = try $0.adopt(branch.id, of: $2, in: $1) }
        #expect(try setting.store { try $0.documentContent(of: $2, in: $1) }.blocks[1].text == "Review in a month.")
    }

    @Test func aLosingDeleteTakesTheBlockOutAndALosingBlockComesBackInItsPlace() throws {
        let setting = try Setting(try WritingFixture.paragraphs(Self.start))
        let base = try setting.store { try $0.documentContent(of: $2, in: $1) }
        let removed = DocumentContent(blocks: [base.blocks[0], base.blocks[2]])
        let branch = try setting.store {
            try $0.createBranch(of: $2, in: $1, base: setting.base.id, content: removed, kind: .syncConflict, provenance: "sync conflict", block: base.blocks[1].id)
        }
        try setting.store { _ = try $0.adoptConflictBlock(branch.id, of: $2, in: $1) }
        #expect(try setting.store { try $0.documentContent(of: $2, in: $1) }.blocks.map(\.id) == removed.blocks.map(\.id))
        // The other way: the document lost the block, the branch puts it back between its neighbours.
        let snapshot = try setting.store { try $0.createSnapshot(of: $2, in: $1) }
        let back = try setting.store {
            try $0.createBranch(of: $2, in: $1, base: snapshot.id, content: base, kind: .syncConflict, provenance: "sync conflict", block: base.blocks[1].id)
        }
        try setting.store { _ = try $0.adoptConflictBlock(back.id, of: $2, in: $1) }
        #expect(try setting.store { try $0.documentContent(of: $2, in: $1) } == base)
    }

    @Test func aProposalChangingAnotherBlockIsRefusedAndNothingIsStored() throws {
        let setting = try Setting(try WritingFixture.paragraphs(Self.start))
        let base = try setting.store { try $0.documentContent(of: $2, in: $1) }
        let two = BranchStoreTests.edited(BranchStoreTests.edited(base, 1, to: "Review in a month."), 0, to: "Dose is 1 mg.")
        let refused = writingError {
            try setting.store { try $0.createBranch(of: $2, in: $1, base: setting.base.id, content: two, kind: .syncConflict, provenance: "p", block: base.blocks[1].id) }
        }
        #expect(refused?.code == .invalidText)
        #expect(refused?.message.contains("changes other blocks of its base") == true)
        #expect(try setting.store { try $0.branches(of: $2, in: $1) }.isEmpty)
    }

    @Test func aBranchOfNoOneBlockIsNotAdoptedAsOne() throws {
        let setting = try Setting(try WritingFixture.paragraphs(Self.start))
        let manual = try setting.propose(BranchStoreTests.edited(try setting.store { try $0.documentContent(of: $2, in: $1) }, 0, to: "Dose is 1 mg."), kind: .manual)
        let refused = writingError { try setting.store { try $0.adoptConflictBlock(manual.id, of: $2, in: $1) } }
        #expect(refused?.code == .invalidText)
        #expect(refused?.message.contains("is not a sync conflict's branch of one block") == true)
        #expect(try setting.store { try $0.branch(manual.id, of: $2, in: $1) }.state == .open)
    }

    @Test func aVersionTwoRecordWhoseDeltaChangesAnotherBlockIsDamage() throws {
        let base = try WritingFixture.paragraphs(Self.start)
        let bytes = SnapshotContent.encode(base)
        let other = BranchStoreTests.edited(base, 0, to: "Dose is 1 mg.")
        // A delta that writes block 1 while naming block 2: parses, but the store refuses what it makes.
        let delta = try OneBlockProposal.delta(from: bytes, to: other, changing: base.blocks[0].id)
        #expect(!OneBlockProposal.changesOnly(base.blocks[1].id, base: base, proposal: try SnapshotContent.decode(try delta.apply(to: bytes))))
        let record = BranchRecord(document: try NodeID.random(), base: try SnapshotID.random(), block: base.blocks[1].id, delta: delta)
        #expect(try BranchRecord(parsing: record.encoded()) == record)
        #expect(writingCode { try BranchRecord(parsing: [3] + record.encoded().dropFirst()) } == .damagedRecord)
        #expect(writingCode { try BranchRecord(parsing: record.encoded() + [0x09]) } == .damagedRecord)
    }
}

/// The WritingError a throwing expression failed with, if any (code and message, for the reason).
func writingError<T>(_ body: () throws -> T) -> WritingError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error as? WritingError
    }
}
