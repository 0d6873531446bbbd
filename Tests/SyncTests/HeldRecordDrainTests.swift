import CryptoVault
@testable import Sync
import Testing
import Writing

/// Records whose parents have not arrived are held, and applied when they do (SECURITY.md §19.4).
/// The worst order for the drain is children first: every record waits, and the last to arrive
/// (the root) completes them all. They must all be applied, to the same documents as the sender's,
/// with a refused one among them refused for its own reason and what is built on it for its parents.
@Suite struct HeldRecordDrainTests {
    /// Device 0's chain of `count` records: a document made, then typed in one record at a time.
    static func chain(_ count: Int) throws -> (fleet: SyncFleet, document: NodeID, records: [ChangeRecord]) {
        var fleet = try SyncFleet(devices: 2)
        let (document, first) = try fleet.replicas[0].createDocument(titled: "Held")
        let block = try BlockID.random()
        var records = [first], text = ""
        for index in 1..<count {
            text += "w\(index) "
            records.append(try #require(try fleet.replicas[0].edit(document, to: DocumentContent(blocks: [Block(id: block, kind: .paragraph, text: text)]))))
        }
        return (fleet, document, records)
    }

    @Test func aChainOfThreeThousandRecordsArrivingChildrenFirstIsAppliedWhole() throws {
        var (fleet, document, records) = try Self.chain(3_000)
        for record in records.dropFirst().reversed() { #expect(fleet.replicas[1].receive(record.encoded) == .held) }
        #expect(fleet.replicas[1].pendingCount == 2_999)
        #expect(fleet.replicas[1].receive(records[0].encoded) == .applied(3_000))
        #expect(fleet.replicas[1].pendingCount == 0 && fleet.replicas[1].recordCount == 3_000)
        #expect(fleet.replicas[1].refusals.isEmpty)
        #expect(fleet.replicas[1].content(of: document).canonicalBytes == fleet.replicas[0].content(of: document).canonicalBytes)
        #expect(fleet.replicas[1].content(of: document).blocks.first?.text.hasSuffix("w2999 ") == true)
    }

    @Test func twoDevicesHistoriesShuffledWithTheRootLastConverge() throws {
        var (fleet, document, records) = try Self.chain(600)
        // Device 1 takes the chain, then both type: its records build on device 0's.
        for record in records { fleet.replicas[1].receive(record.encoded) }
        var theirs: [ChangeRecord] = []
        for index in 0..<600 {
            var content = fleet.replicas[1].content(of: document)
            content.blocks.append(Block(id: try BlockID.random(), kind: .paragraph, text: "d1 \(index)"))
            theirs.append(try #require(try fleet.replicas[1].edit(document, to: content)))
            if index % 3 == 0 {
                var mine = fleet.replicas[0].content(of: document)
                mine.blocks[0].text += "d0x\(index) "
                records.append(try #require(try fleet.replicas[0].edit(document, to: mine)))
            }
        }
        var receiver = SyncReplica(project: fleet.project, author: nil,
                                   devices: Dictionary(uniqueKeysWithValues: fleet.replicas.map { ($0.author!.device, $0.author!.key.publicKey) }))
        var generator = SeededGenerator(seed: 17)
        var all = (records.dropFirst() + theirs).shuffled(using: &generator)
        all.append(records[0])
        for record in all { receiver.receive(record.encoded) }
        receiver.endExchange()
        #expect(receiver.refusals.isEmpty)
        #expect(receiver.recordCount == records.count + theirs.count)
        // The sender holding the same records shows the same document.
        for record in theirs { fleet.replicas[0].receive(record.encoded) }
        #expect(receiver.content(of: document).canonicalBytes == fleet.replicas[0].content(of: document).canonicalBytes)
    }

    @Test func aHeldRecordRefusedWhenItsParentArrivesTakesWhatIsBuiltOnItToMissingParents() throws {
        var (fleet, document, records) = try Self.chain(200)
        let hostile = fleet.replicas[1].author!
        let block = Block(id: try BlockID.random(), kind: .paragraph)
        // Device 1's first record, after device 0's 100th, claims a Lamport time not above its parent's.
        let bad = try ChangeRecord.make(project: fleet.project, author: hostile, counter: 1, lamport: records[99].lamport,
                                        parents: [records[99].hash],
                                        operations: [.block(document: document, block.id, .present(orderKey: "1k", block: block))])
        let child = try ChangeRecord.make(project: fleet.project, author: hostile, counter: 2, lamport: records[99].lamport + 1,
                                          parents: [bad.hash],
                                          operations: [.block(document: document, block.id, .present(orderKey: "1m", block: block))])
        var receiver = SyncReplica(project: fleet.project, author: nil,
                                   devices: Dictionary(uniqueKeysWithValues: fleet.replicas.map { ($0.author!.device, $0.author!.key.publicKey) }))
        #expect(receiver.receive(child.encoded) == .held)
        #expect(receiver.receive(bad.encoded) == .held)
        for record in records.dropFirst().reversed() { #expect(receiver.receive(record.encoded) == .held) }
        #expect(receiver.receive(records[0].encoded) == .applied(200))
        #expect(receiver.refusals.map(\.error.code) == [.causalityViolation])
        #expect(receiver.refusals.first?.record == bad.hash && receiver.refusals.first?.error.message.contains("not later than its parents") == true)
        receiver.endExchange()
        #expect(receiver.refusals.map(\.error.code) == [.causalityViolation, .missingParents])
        #expect(receiver.refusals.last?.record == child.hash && receiver.pendingCount == 0)
        #expect(receiver.content(of: document).canonicalBytes == fleet.replicas[0].content(of: document).canonicalBytes)
    }
}
