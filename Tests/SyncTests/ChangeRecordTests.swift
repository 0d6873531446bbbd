import CryptoVault
import Testing
import TestSupport
@testable import Sync
import Writing

/// The change record format against testvectors/sync/change-records.json, written by the
/// independent testvectors/independent/change_record.py from SECURITY.md §19.2 alone: the Swift
/// parser reads each record to the same fields and hash, the Swift encoder signs the same fields to
/// the same bytes (Ed25519 is deterministic), and each refused variant is refused for its reason.
@Suite struct ChangeRecordTests {
    let vectors: ChangeRecordVectors

    init() throws {
        vectors = try ChangeRecordVectors.load()
    }

    var keys: [DeviceID: [UInt8]] {
        Dictionary(uniqueKeysWithValues: vectors.devices.values.map { (try! DeviceID(hex: $0.deviceId), $0.signingPublicKey.bytes) })
    }

    func author(_ device: DeviceID) throws -> SyncAuthor {
        let entry = try #require(vectors.devices.values.first { $0.deviceId == device.hex })
        let key = try Ed25519PrivateKey(seed: try SecureBytes(copying: entry.seed.bytes))
        #expect(DeviceProfile.deriveIdentifier(signingPublicKey: key.publicKey, noisePublicKey: entry.noisePublicKey.bytes) == device)
        return SyncAuthor(device: device, key: key)
    }

    @Test func recordsParseToTheirFieldsAndSignToTheSameBytes() throws {
        #expect(vectors.records.count >= 5)
        for vector in vectors.records {
            let bytes = vector.record.bytes
            let fields = try vectors.fields(vector)
            let record = try ChangeRecordCodec.parse(bytes)
            #expect(ByteEncoding.hex(record.hash) == vector.hash)
            #expect(record.project.hex == fields.project)
            #expect(record.device.hex == fields.device)
            #expect(record.counter == fields.counter)
            #expect(record.lamport == fields.lamport)
            #expect(record.parents.map(ByteEncoding.hex) == fields.parents)
            #expect(record.operations.map(Self.describe) == fields.operations.map(\.described))
            #expect(record.isSigned(by: keys[record.device]!))
            #expect(record.version == fields.version ?? 1)
            // Signed again at the record's body version: a version-1 record as the earlier build made it.
            let body = try ChangeRecordCodec.body(project: record.project, device: record.device, counter: record.counter,
                                                  lamport: record.lamport, parents: record.parents, operations: record.operations, version: record.version)
            #expect(body + (try author(record.device).key.signature(for: ChangeRecordCodec.signingInput(body))) == bytes)
            guard record.version == ChangeRecordCodec.version else { continue }
            let remade = try ChangeRecord.make(project: record.project, author: try author(record.device), counter: record.counter,
                                               lamport: record.lamport, parents: record.parents, operations: record.operations)
            #expect(remade.encoded == bytes)
        }
    }

    @Test func refusedVariantsAreRefusedForTheirReason() throws {
        #expect(vectors.refused.count >= 12)
        let project = try ProjectID(hex: try vectors.fields(vectors.records[0]).project)
        for vector in vectors.refused {
            var replica = SyncReplica(project: project, author: nil, devices: keys)
            guard case .refused(let error) = replica.receive(vector.record.bytes) else {
                Issue.record("\(vector.name) was not refused")
                continue
            }
            #expect(error.code.rawValue == vector.reason, "\(vector.name): \(error.message)")
            #expect(replica.refusals.map(\.error) == [error])
        }
    }

    /// The three records in order build the document the file describes; given out of order, the same.
    @Test func theRecordsInAnyOrderMakeOneDocument() throws {
        let records = vectors.records.map(\.record.bytes)
        let project = try ChangeRecordCodec.parse(records[0]).project
        var contents: [[UInt8]] = []
        for order in [[0, 1, 2], [2, 1, 0], [1, 2, 0]] {
            var replica = SyncReplica(project: project, author: nil, devices: keys)
            for index in order { replica.receive(records[index]) }
            #expect(replica.refusals.isEmpty)
            let document = try #require(replica.documents.first)
            contents.append(replica.content(of: document).blocks.flatMap { $0.id.bytes + BlockEncoding.encode($0) })
            #expect(replica.content(of: document).blocks.map(\.text) == ["Edited at the desk!", ""])
            // The third record (version 1) carries a 0x03 of the earlier rule: ignored (SECURITY.md
            // §19.2); its write of the block follows both others, so the records make no conflict.
            #expect(replica.conflicts().isEmpty && replica.pendingConflicts.isEmpty)
        }
        #expect(Set(contents).count == 1)
    }

    /// Review 17 s10, N-s10-2 and N-s10-5: the device signed records every reader refuses (a
    /// 256-byte order key written with its length cut to 0; a 0x03 side over the block bound), so
    /// its project went local-only for good. `ChangeRecord.make` now refuses them before signing,
    /// saying why. Failed before: both records were made.
    @Test func aRecordEveryReaderWouldRefuseIsNeverSigned() throws {
        let author = try SyncAuthor.random(), project = try ProjectID.random()
        let document = try NodeID.random(), block = try BlockID.random()
        func make(_ operation: ChangeOperation) throws {
            _ = try ChangeRecord.make(project: project, author: author, counter: 1, lamport: 1, parents: [], operations: [operation])
        }
        func refusal(_ operation: ChangeOperation) -> SyncError? {
            do { try make(operation); return nil } catch { return error as? SyncError }
        }
        let longKey = "1i" + String(repeating: "1", count: 254)
        let cut = refusal(.node(document, .present(kind: .scene, parent: nil, orderKey: longKey, title: "Log")))
        #expect(cut?.code == .invalidChange)
        #expect(cut?.message.contains("256 bytes does not fit a length of 1 byte") == true, "\(String(describing: cut))")
        let big = Block(id: block, kind: .paragraph, text: String(repeating: "a", count: WritingLimits.maximumBlockBytes + 1))
        let conflict = SyncConflict(branch: try BranchID.random(), document: document, block: block,
                                    losing: .present(orderKey: "1i", block: big), winning: .deleted)
        let over = refusal(.conflict(conflict))
        #expect(over?.code == .invalidChange)
        #expect(over?.message.contains("every reader refuses: the change record is malformed: a block over 983040 bytes") == true, "\(String(describing: over))")
        // The same operations within the bounds are signed.
        try make(.node(document, .present(kind: .scene, parent: nil, orderKey: String(longKey.dropLast()), title: "Log")))
        try make(.conflict(SyncConflict(branch: try BranchID.random(), document: document, block: block,
                                        losing: .present(orderKey: "1i", block: Block(id: block, kind: .paragraph, text: String(big.text.dropLast()))), winning: .deleted)))
    }

    @Test func hugeAndTruncatedInputIsRefusedBeforeParsing() throws {
        #expect(throws: SyncError(.malformedRecord, "")) { try ChangeRecordCodec.parse([UInt8](repeating: 0, count: ChangeRecordCodec.maximumSize + 1)) }
        #expect(throws: SyncError(.malformedRecord, "")) { try ChangeRecordCodec.parse(Array("SVCR".utf8)) }
        #expect(throws: SyncError(.malformedRecord, "")) { try ChangeRecordCodec.parse([]) }
    }

    /// An operation as text, the same from the parsed Swift value as `VectorOperation.described` from the file's.
    static func describe(_ operation: ChangeOperation) -> String {
        switch operation {
        case .node(let id, .removed): "node \(id.hex) removed"
        case .node(let id, .present(let kind, let parent, let key, let title)):
            "node \(id.hex) \(kind == .chapter ? "folder" : "document") \(parent?.hex ?? "top") \(key) \(title)"
        case .block(let document, let id, let value): "block \(document.hex) \(id.hex) \(describe(value))"
        case .conflict(let c): "conflict \(c.branch.hex) \(c.document.hex) \(c.block.hex) \(describe(c.losing)) \(describe(c.winning))"
        case .text(let document, let id, let edits): "text \(document.hex) \(id.hex) " + edits.map(describe).joined(separator: "; ")
        case .version(let operation): VersionOperationDescription.describe(operation)
        case .project(.entry(let id, .removed)): "entry \(id.hex) removed"
        case .project(.entry(let id, .present(let entry))):
            "entry \(id.hex) \(entry.kind.rawValue) \(entry.orderKey) \(entry.name) | \(entry.body) | "
                + entry.fields.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue)=\($0.value)" }.joined(separator: ",")
        case .project(.name(let name)): "project name \(name)"
        case .project(.archived(let time)): "project archived \(time.map(String.init) ?? "no")"
        case .project(.projectSnapshot(let s)):
            "project-snapshot \(s.id.hex) \(s.origin.rawValue) \(s.title ?? "-") \(s.deviceID.hex) \(s.createdAt) "
                + s.nodes.map { "\($0.id.hex) \($0.kind == .chapter ? "folder" : "document") \($0.parent?.hex ?? "top") \($0.orderKey) \($0.title) \($0.snapshot?.hex ?? "-")" }
                .joined(separator: "; ")
        }
    }

    static func describe(_ edit: TextEdit) -> String {
        func name(_ c: CharacterID?) -> String { c.map { "\($0.device.hex):\($0.counter):\($0.offset)" } ?? "start" }
        switch edit {
        case .insert(let after, let text): return "insert \(name(after)) \(text)"
        case .delete(let first, let last): return "delete \(name(first)) \(name(last))"
        }
    }

    static func describe(_ value: BlockValue) -> String {
        guard case .present(let key, let block) = value else { return "deleted" }
        return "\(key) \(BlockEncoding.name(of: block.kind)) \(block.text) \(block.rows)"
    }
}
