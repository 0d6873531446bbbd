import CryptoVault
import Testing
@testable import Sync
import Writing

/// What judging touching words (SECURITY.md §19.3) may cost a replica (review 17 s8, F22): a
/// record deleting a range that holds many letters typed concurrently must be worked through in
/// steps about the block's characters, never a step per pair of those letters. One side types a long
/// text inside a word of a sentence while the other deletes the words around it (an offline week's
/// transcript pasted into a paragraph someone else shortened). Counted as work done
/// (`TextSequence.touchWork`), not timed.
@Suite struct TouchingWorkTests {
    static let paragraph = "The meeting is on Monday and we agree on the plan today."

    /// `letters` letters and digits typed as words of six ("w00000 w00001 …").
    static func typing(letters: Int) -> String {
        (0..<letters / 6).map { "w" + String(repeating: "0", count: 5 - String($0).count) + String($0) }.joined(separator: " ")
    }

    /// The desk (device 0) and the laptop (device 1, device 2 when `typists` is 2) hold the paragraph;
    /// offline, each typist types `letters` letters inside "Monday" ("Mon|day", the second inside "Mo|nday")
    /// while the desk deletes "is on Monday and ". Their records, the typists' first.
    static func deleteAroundConcurrentTyping(letters: Int, typists: Int = 1) throws -> (SyncFleet, BlockID, typed: [ChangeRecord], delete: ChangeRecord) {
        var fleet = try SyncFleet(devices: 1 + typists)
        let (document, _) = try fleet.replicas[0].createDocument(titled: "Minutes")
        let block = try BlockID.random()
        _ = try fleet.replicas[0].edit(document, to: DocumentContent(blocks: [Block(id: block, kind: .paragraph, text: paragraph)]))
        var generator = SeededGenerator(seed: 22)
        fleet.healAll(&generator)
        let cuts = ["The meeting is on Mon", "The meeting is on Mo"]
        var typed: [ChangeRecord] = []
        for typist in 1...typists {
            let cut = cuts[typist - 1]
            let text = cut + typing(letters: letters) + paragraph.dropFirst(cut.count)
            typed.append(try #require(try fleet.replicas[typist].edit(document, to: DocumentContent(blocks: [Block(id: block, kind: .paragraph, text: text)]))))
        }
        let shortened = "The meeting we agree on the plan today."
        let delete = try #require(try fleet.replicas[0].edit(document, to: DocumentContent(blocks: [Block(id: block, kind: .paragraph, text: shortened)])))
        return (fleet, block, typed, delete)
    }

    /// The touching work `record` costs `replica` as it arrives (taken), and the block's characters then.
    static func work(of record: ChangeRecord, at replica: inout SyncReplica, in block: BlockID) throws -> (work: Int, characters: Int) {
        let before = replica.blockRegister(block)?.text.touchWork ?? 0
        #expect(replica.receive(record.encoded) == .applied(1))
        let text = try #require(replica.blockRegister(block)).text
        return (text.touchWork - before, text.items.count)
    }

    /// F22 as reproduced (150,000 letters: 103 s of CPU, the sync past its 300 s limit) and the review's
    /// 50,000: the delete is taken by the typist's replica, and the typing by the desk's, each in a few
    /// steps per character of the block; both then hold the same text and the same conflicts.
    @Test(arguments: [50_000, 150_000])
    func aDeleteAroundManyConcurrentLettersCostsStepsPerCharacterNotPerPair(letters: Int) throws {
        var (fleet, block, typed, delete) = try Self.deleteAroundConcurrentTyping(letters: letters)
        let atLaptop = try Self.work(of: delete, at: &fleet.replicas[1], in: block)
        let atDesk = try Self.work(of: typed[0], at: &fleet.replicas[0], in: block)
        #expect(atLaptop.characters > letters)
        for (side, cost) in [("laptop receiving the delete", atLaptop), ("desk receiving the typing", atDesk)] {
            #expect(cost.work <= 16 * cost.characters, "\(side): \(cost.work) steps for \(cost.characters) characters")
        }
        #expect(fleet.replicas[0].blockRegister(block)?.text.text == fleet.replicas[1].blockRegister(block)?.text.text)
        // The typing went into words the delete removed: an overlap, one conflict, the same on both.
        let conflicts = fleet.replicas.indices.map { Set(fleet.replicas[$0].conflicts().map(\.branch)) }
        #expect(!conflicts[0].isEmpty)
        #expect(conflicts[0] == conflicts[1])
    }

    /// Two typists' long runs inside the deleted words, concurrent with each other and the delete:
    /// their letters run together once the words between go, a pair a device must find whatever
    /// order the three records come in, still in steps per character.
    @Test func twoTypistsRunsInsideADeleteAreFoundTouchingInStepsPerCharacter() throws {
        let letters = 30_000
        let (fleet, block, typed, delete) = try Self.deleteAroundConcurrentTyping(letters: letters, typists: 2)
        let base = fleet.replicas[0].records(missingFrom: [:]).filter { $0.hash != delete.hash }
        var results: [Set<BranchID>] = []
        for order in [typed + [delete], [delete] + typed, [typed[1], delete, typed[0]]] {
            var replica = SyncReplica(project: fleet.project, author: nil, devices: fleet.replicas[0].devices)
            for record in base { #expect(replica.receive(record.encoded) == .applied(1)) }
            for record in order {
                let cost = try Self.work(of: record, at: &replica, in: block)
                #expect(cost.work <= 16 * cost.characters, "\(cost.work) steps for \(cost.characters) characters")
            }
            let text = try #require(replica.blockRegister(block)).text
            // The typists' records: concurrent, their last and first letters side by side once "n" is gone.
            #expect(text.touchingWords.count == 1)
            results.append(Set(replica.conflicts().map(\.branch)))
        }
        #expect(results.allSatisfy { $0 == results[0] })
    }

    /// One record of two long runs typed at one anchor (an editor's modified client: an honest
    /// writer's hunks never share one) has its second run placed before its first (§19.3), so the
    /// first's characters are no longer where they were placed. Taken in steps about its characters,
    /// lookups of characters by name included, never in a step per character per character (review
    /// 17 s9, N-s9-8: two runs of 480,000 letters cost every receiver about 2·10^11 steps).
    @Test(arguments: [10_000, 480_000])
    func aRecordOfTwoLongRunsAtOneAnchorIsTakenInStepsPerCharacter(letters: Int) throws {
        var (fleet, document, block) = try TextWorkLimitTests.twoDevices()
        let first = String(repeating: "a", count: letters), second = String(repeating: "b", count: letters)
        let record = try TextWorkLimitTests.record(fleet, document, block, [.insert(after: nil, text: first), .insert(after: nil, text: second)])
        let work = { (text: TextSequence?) in (text?.touchWork ?? 0) + (text?.lookupWork ?? 0) }
        let before = work(fleet.replicas[0].blockRegister(block)?.text)
        #expect(fleet.replicas[0].receive(record.encoded) == .applied(1))
        let text = try #require(fleet.replicas[0].blockRegister(block)).text
        #expect(text.items.count == 2 * letters)
        #expect(work(text) - before <= 16 * text.items.count, "\(work(text) - before) steps for \(text.items.count) characters")
        // The later run first, as on every device.
        #expect(fleet.replicas[0].content(of: document).blocks.map(\.text) == [second + first])
    }

    /// The pairs noted as records arrive (one sweep per record, over what it edited) are exactly
    /// the pairs of concurrent records whose letters touch in some holding of every record held,
    /// judged afresh for each pair (`TextSequence.touch`, every letter of one against the other's):
    /// on each device of random three-device schedules, whatever order its records came in.
    @Test func thePairsNotedAsRecordsArriveAreThePairsJudgedOverEveryRecordHeld() throws {
        var pairs = 0, touching = 0
        for seed in 0..<UInt64(150) {
            let fleet = try ConvergenceTests.run(seed: seed).fleet
            for replica in fleet.replicas {
                let history = replica.history
                let precedes = { (a: Int32, b: Int32) in history.precedes(Int(a), Int(b)) }
                for block in replica.blocksOfDocument.values.flatMap({ $0 }) {
                    let text = try #require(replica.blockRegister(block)).text
                    let typists = Set(text.items.filter(\.isWord).map(\.entry)).sorted()
                    for (index, p) in typists.enumerated() {
                        for q in typists[(index + 1)...] where !precedes(p, q) && !precedes(q, p) {
                            pairs += 1
                            let judged = text.touch(p, q, within: { _ in true }, precedes: precedes)
                            touching += judged ? 1 : 0
                            #expect(text.touchingWords.contains { $0 == (p, q) } == judged, "seed \(seed): records \(p) and \(q)")
                        }
                    }
                }
            }
        }
        // The schedules must hold pairs both ways.
        #expect(touching > 0 && pairs > touching, "\(pairs) concurrent pairs, \(touching) touching")
    }
}
