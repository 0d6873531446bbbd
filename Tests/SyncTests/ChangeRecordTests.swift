import CryptoVault
import Foundation
import Testing
import TestSupport
@testable import Sync
import Writing

/// The change record format against testvectors/sync/change-records.json, written by the
/// independent testvectors/independent/change_record.py from SECURITY.md §19.2 alone: the Swift
/// parser reads each record to the same fields and hash, the Swift encoder signs the same fields to
/// the same bytes (Ed25519 is deterministic), and each refused variant is refused for its reason.
@Suite struct ChangeRecordTests {
    let root: [String: Any]

    init() throws {
        let path = PackageFiles.url("testvectors/sync/change-records.json").path
        let data = try #require(FileManager.default.contents(atPath: path), "missing \(path)")
        root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    var devices: [String: [String: String]] { root["devices"] as! [String: [String: String]] }

    var keys: [DeviceID: [UInt8]] {
        Dictionary(uniqueKeysWithValues: devices.values.map { (try! DeviceID(hex: $0["device_id"]!), knownHex($0["signing_public_key"]!)) })
    }

    func author(_ device: DeviceID) throws -> SyncAuthor {
        let entry = try #require(devices.values.first { $0["device_id"] == device.hex })
        let key = try Ed25519PrivateKey(seed: try SecureBytes(copying: knownHex(entry["seed"]!)))
        #expect(DeviceProfile.deriveIdentifier(signingPublicKey: key.publicKey, noisePublicKey: knownHex(entry["noise_public_key"]!)) == device)
        return SyncAuthor(device: device, key: key)
    }

    @Test func recordsParseToTheirFieldsAndSignToTheSameBytes() throws {
        let records = try #require(root["records"] as? [[String: Any]])
        #expect(records.count >= 5)
        for vector in records {
            let bytes = knownHex(vector["record"] as! String)
            let fields = vector["fields"] as! [String: Any]
            let record = try ChangeRecordCodec.parse(bytes)
            #expect(ByteEncoding.hex(record.hash) == vector["hash"] as? String)
            #expect(record.project.hex == fields["project"] as? String)
            #expect(record.device.hex == fields["device"] as? String)
            #expect(record.counter == UInt64(fields["counter"] as! Int))
            #expect(record.lamport == UInt64(fields["lamport"] as! Int))
            #expect(record.parents.map(ByteEncoding.hex) == fields["parents"] as? [String])
            #expect(record.operations.map(Self.describe) == (fields["operations"] as! [[String: Any]]).map(Self.describe))
            #expect(record.isSigned(by: keys[record.device]!))
            let remade = try ChangeRecord.make(project: record.project, author: try author(record.device), counter: record.counter,
                                               lamport: record.lamport, parents: record.parents, operations: record.operations)
            #expect(remade.encoded == bytes)
        }
    }

    @Test func refusedVariantsAreRefusedForTheirReason() throws {
        let refused = try #require(root["refused"] as? [[String: String]])
        #expect(refused.count >= 12)
        let project = try ProjectID(hex: ((root["records"] as! [[String: Any]])[0]["fields"] as! [String: Any])["project"] as! String)
        for vector in refused {
            var replica = SyncReplica(project: project, author: nil, devices: keys)
            guard case .refused(let error) = replica.receive(knownHex(vector["record"]!)) else {
                Issue.record("\(vector["name"]!) was not refused")
                continue
            }
            #expect(error.code.rawValue == vector["reason"], "\(vector["name"]!): \(error.message)")
            #expect(replica.refusals.map(\.error) == [error])
        }
    }

    /// The three records in order build the document the file describes; given out of order, the same.
    @Test func theRecordsInAnyOrderMakeOneDocument() throws {
        let records = (root["records"] as! [[String: Any]]).map { knownHex($0["record"] as! String) }
        let project = try ChangeRecordCodec.parse(records[0]).project
        var contents: [[UInt8]] = []
        for order in [[0, 1, 2], [2, 1, 0], [1, 2, 0]] {
            var replica = SyncReplica(project: project, author: nil, devices: keys)
            for index in order { replica.receive(records[index]) }
            #expect(replica.refusals.isEmpty)
            let document = try #require(replica.documents.first)
            contents.append(replica.content(of: document).blocks.flatMap { $0.id.bytes + BlockEncoding.encode($0) })
            #expect(replica.content(of: document).blocks.map(\.text) == ["Edited at the desk!", ""])
            #expect(replica.conflicts().count == 1)
        }
        #expect(Set(contents).count == 1)
    }

    @Test func hugeAndTruncatedInputIsRefusedBeforeParsing() throws {
        #expect(throws: SyncError(.malformedRecord, "")) { try ChangeRecordCodec.parse([UInt8](repeating: 0, count: ChangeRecordCodec.maximumSize + 1)) }
        #expect(throws: SyncError(.malformedRecord, "")) { try ChangeRecordCodec.parse(Array("SVCR".utf8)) }
        #expect(throws: SyncError(.malformedRecord, "")) { try ChangeRecordCodec.parse([]) }
    }

    /// An operation as text, the same from the parsed Swift value and from the file's JSON.
    static func describe(_ operation: ChangeOperation) -> String {
        switch operation {
        case .node(let id, .removed): "node \(id.hex) removed"
        case .node(let id, .present(let kind, let parent, let key, let title)):
            "node \(id.hex) \(kind == .chapter ? "folder" : "document") \(parent?.hex ?? "top") \(key) \(title)"
        case .block(let document, let id, let value): "block \(document.hex) \(id.hex) \(describe(value))"
        case .conflict(let c): "conflict \(c.branch.hex) \(c.document.hex) \(c.block.hex) \(describe(c.losing)) \(describe(c.winning))"
        case .text(let document, let id, let edits): "text \(document.hex) \(id.hex) " + edits.map(describe).joined(separator: "; ")
        case .version(let operation): VersionOperationDescription.describe(operation)
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

    static func describe(_ json: [String: Any]) -> String {
        func value(_ value: Any?) -> String {
            guard let value = value as? [String: Any] else { return "deleted" }
            return "\(value["order_key"]!) \(value["kind"]!) \(value["text"]!) \(value["rows"] as! [[String]])"
        }
        switch json["op"] as! String {
        case "node":
            guard let node = json["value"] as? [String: Any] else { return "node \(json["node"]!) removed" }
            return "node \(json["node"]!) \(node["kind"]!) \((node["parent"] as? String) ?? "top") \(node["order_key"]!) \(node["title"]!)"
        case "block": return "block \(json["document"]!) \(json["block"]!) \(value(json["value"]))"
        case "text":
            func name(_ c: Any?) -> String {
                guard let c = c as? [String: Any] else { return "start" }
                return "\(c["device"]!):\(c["counter"]!):\(c["offset"]!)"
            }
            let edits = (json["edits"] as! [[String: Any]]).map { edit in
                edit["edit"] as! String == "insert" ? "insert \(name(edit["after"])) \(edit["text"]!)" : "delete \(name(edit["first"])) \(name(edit["last"]))"
            }
            return "text \(json["document"]!) \(json["block"]!) " + edits.joined(separator: "; ")
        case "snapshot", "branch", "decision", "edit-event": return VersionOperationDescription.describe(json)
        default: return "conflict \(json["branch"]!) \(json["document"]!) \(json["block"]!) \(value(json["losing"])) \(value(json["winning"]))"
        }
    }
}

