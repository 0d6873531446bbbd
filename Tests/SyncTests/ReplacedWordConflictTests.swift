import Testing
@testable import Sync
import Writing

/// A word deleted on one device while another replaces it (issue 17's word loss, found by
/// ThreeDeviceSyncOverNetworkTests): "a d0w85 b" made "a b" on one (the word and a space deleted)
/// and "a d2w90 b" on the other. The merged text runs the new word into the next ("a d2w90b"), so
/// the text conflict's branch must hold the replacing side, whole, whatever the two records'
/// ranks and whatever order the records arrive in (SECURITY.md §19.3).
@Suite struct ReplacedWordConflictTests {
    @Test(arguments: [2, 3]) func aReplacedWordSurvivesAConcurrentDeleteWhole(devices: Int) throws {
        // Both device pairs' ranks (the deleter on 0 and the replacer on the last, and the other
        // way round), each delivered in both orders.
        for (deleter, replacer) in [(0, devices - 1), (devices - 1, 0)] {
            for deleterFirst in [true, false] {
                try check(devices: devices, deleter: deleter, replacer: replacer, deleterFirst: deleterFirst)
            }
        }
    }

    private func check(devices: Int, deleter: Int, replacer: Int, deleterFirst: Bool) throws {
        let label = "\(devices) devices, deleter \(deleter), replacer \(replacer), deleter's record first: \(deleterFirst)"
        var generator = SeededGenerator(seed: 17)
        var fleet = try SyncFleet(devices: devices)
        let (document, _) = try fleet.replicas[0].createDocument(titled: "Case file")
        let block = Block(id: try BlockID.random(), kind: .paragraph, text: "d0w1 d0w85 d0w2")
        _ = try fleet.replicas[0].edit(document, to: DocumentContent(blocks: [block]))
        fleet.healAll(&generator)
        var deleted = block, replaced = block
        deleted.text = "d0w1 d0w2"
        replaced.text = "d0w1 d2w90 d0w2"
        _ = try fleet.replicas[deleter].edit(document, to: DocumentContent(blocks: [deleted]))
        _ = try fleet.replicas[replacer].edit(document, to: DocumentContent(blocks: [replaced]))
        let order = deleterFirst ? [deleter, replacer] : [replacer, deleter]
        for to in 0..<devices where !order.contains(to) {
            for from in order { _ = fleet.sync(from: from, to: to, shuffle: &generator) }
        }
        _ = fleet.sync(from: order[0], to: order[1], shuffle: &generator)
        _ = fleet.sync(from: order[1], to: order[0], shuffle: &generator)
        fleet.healAll(&generator)
        let reference = fleet.replicas[0].content(of: document)
        let conflicts = fleet.replicas[0].conflicts()
        for index in 1..<devices {
            #expect(fleet.replicas[index].content(of: document).canonicalBytes == reference.canonicalBytes, "\(label): device \(index) differs")
            #expect(fleet.replicas[index].conflicts() == conflicts, "\(label): device \(index)'s conflicts differ")
        }
        // What the vault shows: the document and each conflict's branch (its losing side).
        let shown = WordTracker.words(in: reference.blocks).union(WordTracker.words(in: conflicts.compactMap { $0.losing.block }))
        #expect(shown.contains("d2w90"), "\(label): the typed word d2w90 is whole nowhere: document \(reference.blocks.map(\.text)), branches \(conflicts.map { $0.losing.block?.text })")
        #expect(shown.isSuperset(of: ["d0w1", "d0w2"]), "\(label): \(reference.blocks.map(\.text))")
        #expect(conflicts.count == 1, "\(label): \(conflicts.count) conflicts")
    }
}
