import CryptoVault
import Testing
@testable import Sync
import Writing

/// What a record's 0x03s may cost a replica that looks their names up (attack review s8, N6;
/// SECURITY.md §19.2). Each 0x03's name is looked for among the conflicts of its block's writes,
/// at every receive and at every rebuild from stored records. A paired device that writes the
/// project can send records of thousands of 0x03s naming conflicts no record makes, over a block
/// with many concurrent writes: the work must stay that of working each name out once per
/// register (memoised), plus the per-record budget for names of the earlier rule, never a scan of
/// every pair per 0x03. Counted as work done (`BlockRegister.nameWork`), not timed. Since the
/// block-conflict rule v2 (merge-design §1.7) a name is a losing write's, so each write is named
/// once, and there is no earlier rule's search (a version-1 record's 0x03s are ignored).
@Suite struct ConflictNameWorkTests {
    /// Two devices that each wrote one block `edits` times without syncing (`edits`² concurrent
    /// pairs of writes), then the second device holding both sides.
    static func concurrentWrites(edits: Int) throws -> (fleet: SyncFleet, document: NodeID, block: BlockID) {
        var fleet = try SyncFleet(devices: 2)
        var generator = SeededGenerator(seed: 6)
        let (document, _) = try fleet.replicas[0].createDocument(titled: "Notes")
        let block = try BlockID.random()
        _ = try fleet.replicas[0].edit(document, to: DocumentContent(blocks: [Block(id: block, kind: .paragraph, text: "start")]))
        fleet.sync(from: 0, to: 1, shuffle: &generator)
        for edit in 0..<edits {
            for device in 0..<2 {
                let text = "start device\(device) edit\(edit)"
                _ = try fleet.replicas[device].edit(document, to: DocumentContent(blocks: [Block(id: block, kind: .paragraph, text: text)]))
            }
        }
        fleet.sync(from: 0, to: 1, shuffle: &generator)
        return (fleet, document, block)
    }

    @Test func aRecordOfManyUnfoundNamesCostsEachNameOnceNotEveryPairPerName() throws {
        let edits = 20, names = 300
        var (fleet, document, block) = try Self.concurrentWrites(edits: edits)
        let forged = try (0..<names).map { _ in
            ChangeOperation.conflict(SyncConflict(branch: try BranchID.random(), document: document, block: block,
                                                  losing: .deleted, winning: .deleted))
        }
        // A hostile device does not check its own records.
        fleet.replicas[1].checksConflictClaims = false
        let record = try fleet.replicas[1].commit(forged, carryingConflicts: false)

        // A replica rebuilt from the records (as a vault opening does, the names unchecked).
        let keys = fleet.replicas[1].devices
        var rebuilt = SyncReplica(project: fleet.project, author: nil, devices: keys)
        for earlier in fleet.replicas[1].records(missingFrom: [:]) where earlier.hash != record.hash {
            #expect(rebuilt.receive(earlier.encoded) == .applied(1))
        }
        let before = try #require(rebuilt.blockRegister(block)).nameWork
        #expect(rebuilt.receive(record.encoded) == .applied(1))
        // Each conflict's branch is seen from the record its name gives: looked up once more per name.
        for conflict in rebuilt.conflicts() { _ = rebuilt.proposal(for: conflict) }
        let register = try #require(rebuilt.blockRegister(block))
        let work = register.nameWork - before

        let writes = register.writes.count, pairs = edits * edits
        #expect(writes == 2 * edits + 1)
        // Every write's name, once: no pair of writes is named (v2 names are one losing write's).
        let bound = writes
        _ = pairs
        #expect(work <= bound, "\(names) unfound names cost \(work) names worked out and writes considered, over \(bound)")
        // In all (the join's 0x03s looked up too): each write named once.
        #expect(register.nameWork > 0 && register.nameWork <= bound, "\(register.nameWork) names worked out for \(writes) writes")
    }
}
