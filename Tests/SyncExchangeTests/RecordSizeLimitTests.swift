import CryptoVault
import PeerChannel
@testable import Sync
import Testing
import TestSupport
import Writing

/// A record this vault takes is one it can hand on (SECURITY.md §19.2, §19.9; review 17's F8): the
/// codec's bound leaves a whole sync message's other fields room, so a record over it is refused on
/// arrival (`malformedRecord`, recorded) rather than stored and then impossible to send; and a project
/// whose step fails for a reason of its own (`recordTooLarge`, the peer refusing it) is left for the
/// run and recorded, while the other projects sync.
@Suite(.serialized) struct RecordSizeLimitTests {
    typealias F = SyncExchangeFixture

    /// A valid record signed by `author`, `size` bytes or a little more: a document whose two blocks
    /// were typed full and emptied again in the record (nothing shown, so the writing store would take it).
    static func oversized(_ project: ProjectID, by author: SyncAuthor, atLeast size: Int) throws -> ChangeRecord {
        let document = try NodeID.random()
        var operations: [ChangeOperation] = [.node(document, .present(kind: .scene, parent: nil, orderKey: "1k", title: "Filler"))]
        var offset: UInt32 = 0
        for key in ["1k", "1s"] {
            let block = try BlockID.random()
            var edits: [TextEdit] = []
            let first = offset
            var typed = size / 2 + 64
            while typed > 0 {
                let length = min(typed, WritingLimits.maximumBlockBytes)
                let anchor = offset == first ? nil : CharacterID(device: author.device, counter: 1, offset: offset - 1)
                edits.append(.insert(after: anchor, text: String(repeating: "a", count: length)))
                offset += UInt32(length)
                typed -= length
            }
            edits.append(.delete(first: CharacterID(device: author.device, counter: 1, offset: first),
                                 last: CharacterID(device: author.device, counter: 1, offset: offset - 1)))
            operations += [.block(document: document, block, .present(orderKey: key, block: Block(id: block, kind: .paragraph, text: ""))),
                           .text(document: document, block, edits)]
        }
        // Signed by hand, as a hostile device would: `ChangeRecord.make` never makes a record over the bound.
        let body = try ChangeRecordCodec.body(project: project, device: author.device, counter: 1, lamport: 1, parents: [], operations: operations)
        let signature = try author.key.signature(for: ChangeRecordCodec.signingInput(body))
        return ChangeRecord(project: project, device: author.device, counter: 1, lamport: 1, parents: [], operations: operations,
                            signature: signature, encoded: body + signature)
    }

    @Test func aValidRecordOverTheBatchBudgetIsRefusedOnArrivalRecordedAndTheOtherProjectSyncs() throws {
        let answerer = ForgingAnswerer()
        let f = try F(deskAnswers: answerer)
        answerer.answer(as: f.deskKeys)
        let poisoned = try F.project(f.laptop, "Poisoned")
        let healthy = try F.project(f.laptop, "Healthy")
        answerer.offer(poisoned, access: .mine)
        answerer.offer(healthy, access: .mine)
        // Just over what a batch carries (the old bound let it in: 4 MiB − 64 KiB up to 4 MiB).
        let big = try Self.oversized(poisoned.id, by: answerer.author, atLeast: 4 * 1024 * 1024 - 64 * 1024 + 16)
        #expect(big.encoded.count > ChangeRecordCodec.maximumSize && big.encoded.count + 4 <= SyncWire.maximumMessage - 24_584, "\(big.encoded.count)")
        answerer.keep(big)
        try answerer.plant(in: healthy.id)

        let report = try f.syncLaptop()
        let refused = try #require(report.projects.first { $0.project == poisoned.id })
        #expect(refused.refused == ["malformedRecord"] && refused.received == 0, "\(report)")
        #expect(report.projects.first { $0.project == healthy.id }?.received == 1, "\(report)")
        #expect(F.details(f.laptop, .syncRecordRefused, "reason") == ["malformedRecord"])
        #expect(F.details(f.laptop, .syncRecordRefused, "hash") == [ByteEncoding.hex(big.hash)])
        // Nothing of it is held, so nothing this vault holds is too large to send on.
        let held = try f.laptop.unlocked.transaction { tx in
            try VaultSync(WritingStore(tx), author: SyncAuthor.random(), devices: [:]).records(of: poisoned.id, missingFrom: [:])
        }
        #expect(held.allSatisfy { $0.count + 4 <= SyncWire.batchBudget })
        #expect(!held.contains { SHA256.hash($0) == big.hash })
    }

    @Test func aProjectWhoseStepFailsForItsOwnReasonIsLeftRecordedAndTheNextProjectStillSyncs() throws {
        let answerer = ForgingAnswerer()
        let f = try F(deskAnswers: answerer)
        answerer.answer(as: f.deskKeys)
        let stuck = try F.project(f.laptop, "Stuck")
        let healthy = try F.project(f.laptop, "Healthy")
        answerer.offer(stuck, access: .mine)
        answerer.offer(healthy, access: .mine)
        try answerer.plant(in: stuck.id)
        try answerer.plant(in: healthy.id)
        // The answerer holds a record of `stuck` it cannot send (as a vault did before the bound).
        answerer.refusePulls(of: stuck.id, with: .recordTooLarge)

        let report = try f.syncLaptop()
        let left = try #require(report.projects.first { $0.project == stuck.id })
        #expect(left.skipped?.hasPrefix("recordTooLarge") == true && left.received == 0, "\(report)")
        #expect(report.projects.first { $0.project == healthy.id }?.received == 1, "\(report)")
        #expect(F.details(f.laptop, .syncProjectSkipped, "reason") == ["recordTooLarge"])
        #expect(F.details(f.laptop, .syncProjectSkipped, "project") == [stuck.id.hex])
        #expect(F.details(f.laptop, .syncExchange, "error").isEmpty)
    }

    @Test func theCodecsBoundLeavesEveryOtherFieldOfTheLargestMessageRoom() throws {
        // A pull answer: version, more, a vector of 1,024 devices, 512 tips, the records' count; then one record with its length.
        let largestRest = 1 + 1 + 2 + SyncWire.maximumDevices * 24 + 2 + SyncWire.maximumTips * 48 + 4
        #expect(SyncWire.batchBudget == ChangeRecordCodec.maximumSize + 4)
        #expect(largestRest + SyncWire.batchBudget <= SyncWire.maximumMessage)
        #expect(ChangeRecordCodec.maximumSize == 4_128_768)
        // The largest record the codec takes travels alone; one byte more is refused before it is stored.
        #expect(try SyncWire.batch([[UInt8](repeating: 1, count: ChangeRecordCodec.maximumSize)][...]).count == 1)
        #expect(throws: SyncError(.malformedRecord, "")) { try ChangeRecordCodec.parse([UInt8](repeating: 0, count: ChangeRecordCodec.maximumSize + 1)) }
    }
}
