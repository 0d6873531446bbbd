import CryptoVault
import Testing
import TestSupport
@testable import Sync
import Writing

/// The merge's known answers (testvectors/sync/merge-cases.json, written by the independent
/// testvectors/independent/sync_merge.py from SECURITY.md §19.3 alone): each case's records, given to
/// a replica in each of the file's orders, show the same documents byte for byte (their §15.2
/// content) with the same node values, exactly the conflicts (facts) and pending conflicts the file
/// names, each branch proposing what the file says (the document as the whole set shows it, the
/// losing value in place of the block).
@Suite struct MergeKnownAnswerTests {
    /// merge-cases.json as types, read by TestSupport's one vector loader.
    struct File: Decodable {
        struct Case: Decodable {
            struct Document: Decodable {
                struct Block: Decodable { let text: String }

                let document: String
                let node: VectorOperation.Node.Value?
                let blocks: [Block]
                let content: String
            }

            /// A conflict's syncConflict branch: its proposal's §15.2 content (§19.5).
            struct Branch: Decodable {
                let branch: String
                let content: String
            }

            let name: String
            let project: String
            let records: [ChangeRecordVectors.Record]
            let orders: [[Int]]
            let documents: [Document]
            let conflicts: [VectorOperation.Conflict]
            /// The conflicts the fold of the current heads makes that no merge point held makes yet.
            let pending: [VectorOperation.Conflict]
            let branches: [Branch]
            /// The records a receiving replica refuses (SECURITY.md §19.4: a 0x03 naming no
            /// conflict its record's past makes), by hash, with the reason.
            let refusedWhenReceived: [Refusal]
            /// The records SECURITY.md §19.4's fork rule leaves out (a device's record of a number a
            /// record of lower rank has, and what is built on it), by hash: refused, or dropped
            /// when the lower-ranked one comes, in every order.
            let dropped: [String]
            /// The device ids the replaying vault trusts as its own (SECURITY.md §19.4: the copy of a
            /// fork one of them built on stays).
            let own: [String]
        }

        struct Refusal: Decodable {
            let record: String
            let reason: String
        }

        let description: String
        let spec: String
        let devices: [String: ChangeRecordVectors.Device]
        let cases: [Case]
    }

    let file: File

    init() throws {
        file = try PackageFiles.decode("testvectors/sync/merge-cases.json", keys: .convertFromSnakeCase)
    }

    func keys() throws -> [DeviceID: [UInt8]] {
        var keys: [DeviceID: [UInt8]] = [:]
        for device in file.devices.values { keys[try DeviceID(hex: device.deviceId)] = device.signingPublicKey.bytes }
        return keys
    }

    @Test func everyCaseInEveryOrderShowsItsDocumentsAndConflicts() throws {
        let keys = try keys()
        #expect(file.spec.hasPrefix("SECURITY.md §19.3") && !file.description.isEmpty)
        #expect(file.cases.count >= 32)
        #expect(file.cases.contains { !$0.dropped.isEmpty })
        for vector in file.cases {
            let records = vector.records.map(\.record.bytes)
            let project = try ProjectID(hex: vector.project)
            let conflicts = vector.conflicts.map(\.described).sorted(), pending = vector.pending.map(\.described).sorted()
            guard !vector.orders.isEmpty else { throw VectorMalformed(description: "case \(vector.name) has no orders") }
            for order in vector.orders {
                var replica = SyncReplica(project: project, author: nil, devices: keys, own: Set(try vector.own.map(DeviceID.init(hex:))))
                // The conflicts a vault would meet as each record arrives (§19.3: conflicts only grow,
                // so these are exactly the file's, whatever the order), by what every device agrees
                // on: name, block and losing value (a proposal's other blocks are the document then).
                var met: [String: String] = [:]
                for index in order {
                    replica.receive(records[index])
                    for conflict in replica.conflicts() where met[conflict.branch.hex] == nil {
                        met[conflict.branch.hex] = ChangeRecordTests.describe(.conflict(conflict))
                    }
                }
                let label = "\(vector.name), order \(order)"
                #expect(met.values.sorted() == conflicts, "\(label): conflicts met as the records arrived differ from the file's")
                // Only the fork rule's records are refused (and not held after: one refused before
                // another device's record backed it is taken then), whatever came first (§19.4).
                let refused = Set(replica.refusals.filter { !replica.contains($0.record ?? []) }
                    .map { "\(ByteEncoding.hex($0.record ?? [])) \($0.error.code.rawValue)" }).sorted()
                #expect(refused == vector.dropped.map { "\($0) equivocation" }.sorted(), "\(label)")
                #expect(replica.droppedRecords.map(ByteEncoding.hex).sorted() == vector.dropped.sorted(), "\(label)")
                #expect(replica.pendingCount == 0, "\(label)")
                #expect(replica.recordCount == records.count - vector.dropped.count, "\(label)")
                #expect(replica.documents.map(\.hex).sorted() == vector.documents.map(\.document).sorted(), "\(label)")
                let binder = replica.binder
                for document in vector.documents {
                    let id = try NodeID(hex: document.document)
                    let node = binder[id].map { ChangeRecordTests.describe(.node(id, $0)) }
                    #expect(node == VectorOperation.Node(node: document.document, value: document.node).described, "\(label)")
                    let content = replica.content(of: id)
                    #expect(content.blocks.map(\.text) == document.blocks.map(\.text), "\(label)")
                    #expect(ByteEncoding.hex(SnapshotContent.encode(content)) == document.content, "\(label)")
                }
                let found = replica.conflicts().sorted { $0.branch.hex < $1.branch.hex }
                #expect(found.map { ChangeRecordTests.describe(.conflict($0)) } == conflicts, "\(label)")
                #expect(replica.pendingConflicts.map { ChangeRecordTests.describe(.conflict($0)) }.sorted() == pending, "\(label): pending")
                // Each branch's proposal against the whole set's document (§19.3, §19.5); none for an empty one.
                let proposals = found.map { conflict in (conflict.branch.hex, replica.proposal(for: conflict)) }.filter { !$0.1.blocks.isEmpty }
                #expect(proposals.map(\.0) == vector.branches.map(\.branch), "\(label)")
                #expect(proposals.map { ByteEncoding.hex(SnapshotContent.encode($0.1)) } == vector.branches.map(\.content), "\(label)")
            }
        }
    }

    /// Received as a vault receives (every 0x03 checked against its record's past, SECURITY.md
    /// §19.4), in every order: exactly the file's records are refused, each for its reason (an
    /// honest device's 0x03 is always founded; a forged name of writes that merge is not).
    @Test func everyCaseReceivedCheckedRefusesExactlyTheFilesRecords() throws {
        let keys = try keys()
        #expect(file.cases.contains { !$0.refusedWhenReceived.isEmpty })
        for vector in file.cases {
            let records = vector.records.map(\.record.bytes)
            let project = try ProjectID(hex: vector.project)
            let expected = (vector.refusedWhenReceived.map { "\($0.record) \($0.reason)" } + vector.dropped.map { "\($0) equivocation" }).sorted()
            for order in vector.orders {
                var replica = SyncReplica(project: project, author: nil, devices: keys, own: Set(try vector.own.map(DeviceID.init(hex:))))
                replica.checksConflictClaims = true
                for index in order { replica.receive(records[index]) }
                let refused = Set(replica.refusals.filter { !replica.contains($0.record ?? []) }
                    .map { "\(ByteEncoding.hex($0.record ?? [])) \($0.error.code.rawValue)" }).sorted()
                #expect(refused == expected, "\(vector.name), order \(order)")
                #expect(replica.pendingCount == 0, "\(vector.name), order \(order)")
            }
        }
    }
}
