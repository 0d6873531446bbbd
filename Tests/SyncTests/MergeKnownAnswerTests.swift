import CryptoVault
import Foundation
import Testing
import TestSupport
@testable import Sync
import Writing

/// The merge's known answers (testvectors/sync/merge-cases.json, written by the independent
/// testvectors/independent/sync_merge.py from SECURITY.md §19.3 alone): each case's records, given to
/// a replica in each of the file's orders, show the same documents byte for byte (their §15.2
/// content) with the same node values, and exactly the conflicts the file names.
@Suite struct MergeKnownAnswerTests: VectorFields {
    let file: VectorFile

    init() throws {
        file = try VectorFile.load("testvectors/sync/merge-cases.json", spec: "SECURITY.md §19.3")
    }

    func keys() throws -> [DeviceID: [UInt8]] {
        var keys: [DeviceID: [UInt8]] = [:]
        for case let device as [String: Any] in try Self.object(file.root, "devices").values {
            keys[try DeviceID(hex: try Self.string(device, "device_id"))] = try Self.hex(device, "signing_public_key")
        }
        return keys
    }

    @Test func everyCaseInEveryOrderShowsItsDocumentsAndConflicts() throws {
        let keys = try keys()
        #expect(file.cases.count >= 20)
        for vector in file.cases {
            let name = try Self.string(vector, "name")
            let records = try Self.list(vector, "records").map { try Self.hex($0, "record") }
            let project = try ProjectID(hex: try Self.string(vector, "project"))
            let documents = try Self.list(vector, "documents")
            let conflicts = try Self.list(vector, "conflicts").map(ChangeRecordTests.describe).sorted()
            guard let orders = vector["orders"] as? [[Int]], !orders.isEmpty else {
                throw VectorMalformed(description: "case \(name) has no orders")
            }
            for order in orders {
                var replica = SyncReplica(project: project, author: nil, devices: keys)
                for index in order { replica.receive(records[index]) }
                let label = "\(name), order \(order)"
                #expect(replica.refusals.isEmpty && replica.pendingCount == 0, "\(label)")
                #expect(replica.documents.map(\.hex).sorted() == documents.map { $0["document"] as? String ?? "" }.sorted(), "\(label)")
                let binder = replica.binder
                for document in documents {
                    let hex = try Self.string(document, "document")
                    let id = try NodeID(hex: hex)
                    let node = binder[id].map { ChangeRecordTests.describe(.node(id, $0)) }
                    #expect(node == ChangeRecordTests.describe(["op": "node", "node": hex, "value": document["node"] as Any]), "\(label)")
                    let content = replica.content(of: id)
                    #expect(content.blocks.map(\.text) == (try Self.list(document, "blocks")).map { $0["text"] as? String ?? "" }, "\(label)")
                    #expect(ByteEncoding.hex(SnapshotContent.encode(content)) == (try Self.string(document, "content")), "\(label)")
                }
                #expect(replica.conflicts().map { ChangeRecordTests.describe(.conflict($0)) }.sorted() == conflicts, "\(label)")
            }
        }
    }
}
