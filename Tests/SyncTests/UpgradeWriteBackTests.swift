import CryptoVault
import Testing
@testable import Sync
import Writing

/// After the upgrade to the merge rule of block conflicts (merge-design §1.8.1, SECURITY.md §19.9):
/// a block whose stored text a record of the earlier rule spliced reads otherwise from the records
/// (one side whole), and the first commit writes the store's text back as this device's edit.
/// Every device does the same with the same string, so no conflict comes of the write-backs
/// (§19.3: equal values), and both show the text the owner had.
@Suite struct UpgradeWriteBackTests {
    /// Device `device`'s change of the block to `text`, as an earlier build signed it: body version 1.
    static func versionOneEdit(_ fleet: VersionFleet, on device: Int, _ document: NodeID, to text: String) throws -> ChangeRecord {
        var replica = try fleet.sync(device) { try $0.replica(of: fleet.project) }
        var content = replica.content(of: document)
        content.blocks[0].text = text
        let made = try #require(try replica.edit(document, to: content))
        let body = try ChangeRecordCodec.body(project: made.project, device: made.device, counter: made.counter, lamport: made.lamport,
                                              parents: made.parents, operations: made.operations, version: 1)
        let record = try ChangeRecordCodec.parse(body + (try fleet.authors[device].key.signature(for: ChangeRecordCodec.signingInput(body))))
        #expect(record.version == 1)
        return record
    }

    @Test func theFirstCommitAfterTheUpgradeWritesTheStoresSplicedTextBackAndBothDevicesConverge() throws {
        let fleet = try VersionFleet(devices: 2)
        let document = try fleet.document(on: 0, ["Take 5 mg twice daily."])
        try fleet.sync(from: 0, to: 1)
        let block = try fleet.content(document, on: 0).blocks[0].id
        // Before the upgrade: each device changed the block, both stored both records, and the
        // earlier rule's character merge left the splice in both stores.
        let records = try [Self.versionOneEdit(fleet, on: 0, document, to: "Take 10 mg twice daily."),
                           Self.versionOneEdit(fleet, on: 1, document, to: "Take 5 mg once daily.")]
        let spliced = "Take 10 mg once daily."
        for device in 0..<2 {
            try fleet.sync(device) { sync in
                for record in records { try sync.storeRecord(record, of: try sync.store.project(fleet.project)) }
            }
            try fleet.store(device) { store in
                _ = try store.replaceSyncedDocumentContent(of: document, in: fleet.project,
                                                           with: DocumentContent(blocks: [Block(id: block, kind: .paragraph, text: spliced)]))
            }
            var replica = try fleet.sync(device) { try $0.replica(of: fleet.project) }
            let shown = replica.content(of: document).blocks.map(\.text)
            #expect(shown == ["Take 10 mg twice daily."] || shown == ["Take 5 mg once daily."], "the records show one side whole: \(shown)")
        }

        // After it: each device's first commit writes the store's text back, as its own edit.
        for device in 0..<2 {
            let made = try fleet.sync(device) { try $0.commitLocalChanges(in: fleet.project) }
            let record = try #require(made, "device \(device)'s first commit wrote nothing back")
            #expect(record.device == fleet.authors[device].device)
            var replica = try fleet.sync(device) { try $0.replica(of: fleet.project) }
            #expect(replica.content(of: document).blocks.map(\.text) == [spliced], "device \(device)")
        }
        try fleet.syncAll()
        var replicas: [SyncReplica] = []
        for device in 0..<2 {
            #expect(try fleet.content(document, on: device).blocks.map(\.text) == [spliced], "device \(device)")
            replicas.append(try fleet.sync(device) { try $0.replica(of: fleet.project) })
            #expect(replicas[device].content(of: document).blocks.map(\.text) == [spliced])
            #expect(replicas[device].pendingConflicts.isEmpty)
        }
        // One conflict: the earlier records' two sides, made at the write-backs' merge point; the
        // two write-backs are equal, so none of them.
        let conflicts = replicas[0].conflicts()
        #expect(replicas[1].conflicts() == conflicts)
        #expect(conflicts.count == 1, "\(conflicts.map { ($0.losing.block?.text, $0.winning.block?.text) })")
        #expect(conflicts.allSatisfy { ["Take 10 mg twice daily.", "Take 5 mg once daily."].contains($0.losing.block?.text) })
    }
}
