import Foundation
import Testing
@testable import Sync
import Writing

/// Review 17 s10, N-s10-5: a conflict over a paragraph the merge made longer than a block may be
/// (`BlockOverflow`): each device's 0x03 carried both sides whole, past what every reader takes, so
/// both own devices signed records the other refused and the project went local-only on both.
/// Such a conflict now stays in each device's own branches (both work it out alike); the records
/// carry only what readers take. Failed before: the next edit made a malformed record.
@Suite struct OverBoundConflictTests {
    @Test func aConflictOverAParagraphPastTheBoundLeavesBothDevicesSyncing() throws {
        var fleet = try SyncFleet(devices: 2)
        var generator = SeededGenerator(seed: 5)
        let (document, _) = try fleet.replicas[0].createDocument(titled: "Long")
        let long = (0..<140_000).map { "w\($0)" }.joined(separator: " ")
        let first = Block(id: try BlockID.random(), kind: .paragraph, text: "Short first paragraph.")
        _ = try fleet.replicas[0].edit(document, to: DocumentContent(blocks: [first, Block(id: try BlockID.random(), kind: .paragraph, text: long)]))
        fleet.sync(from: 0, to: 1, shuffle: &generator)
        // Both change the same word of the long paragraph while apart (as shown: in pieces).
        for (device, word) in [(0, "DeskEdit1"), (1, "LaptEdit1")] {
            var blocks = fleet.replicas[device].content(of: document).blocks
            #expect(blocks.count == 3)
            blocks[1].text = blocks[1].text.replacingOccurrences(of: " w200 ", with: " \(word) ")
            _ = try #require(try fleet.replicas[device].edit(document, to: DocumentContent(blocks: blocks)))
        }
        fleet.sync(from: 0, to: 1, shuffle: &generator)
        fleet.sync(from: 1, to: 0, shuffle: &generator)
        let conflicts = fleet.replicas[0].conflicts()
        #expect(conflicts.contains { ($0.losing.block?.text.utf8.count ?? 0) > WritingLimits.maximumBlockBytes })
        // Each writes on, and each takes the other's records.
        for (device, text) in [(0, "Short first paragraph, at the desk."), (1, "Short first paragraph, on the laptop.")] {
            var blocks = fleet.replicas[device].content(of: document).blocks
            blocks[0].text = text
            _ = try #require(try fleet.replicas[device].edit(document, to: DocumentContent(blocks: blocks)))
            for record in fleet.replicas[device].records(missingFrom: [:]) {
                #expect((try? ChangeRecordCodec.parse(record.encoded)) == record)
            }
        }
        fleet.sync(from: 0, to: 1, shuffle: &generator)
        fleet.sync(from: 1, to: 0, shuffle: &generator)
        #expect(fleet.replicas[0].refusals.isEmpty)
        #expect(fleet.replicas[1].refusals.isEmpty)
        #expect(fleet.replicas[0].content(of: document).canonicalBytes == fleet.replicas[1].content(of: document).canonicalBytes)
        #expect(fleet.replicas[0].conflicts() == fleet.replicas[1].conflicts())
        #expect(!fleet.replicas[1].conflicts().isEmpty)  // the branches stay on both devices
    }
}
