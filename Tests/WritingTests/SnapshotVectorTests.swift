import CryptoVault
import Foundation
import Testing
import TestSupport
@testable import Writing

/// testvectors/writing/snapshots.json (written by testvectors/generate.py from the spec, with the
/// independent block encoder and delta reader): snapshot contents decode and re-encode to the file's
/// bytes, sealed snapshot values parse to its fields and rebuild its contents, damage is refused.
@Suite("Snapshot known answers (testvectors/writing/snapshots.json)")
struct SnapshotVectorTests {
    struct File: Decodable {
        let spec: String
        let cases: [Case]
    }

    struct Case: Decodable {
        let type: String
        let name: String
        let encoded: HexBytes
        let blocks: [HexBytes]?
        let form: String?
        let document: HexBytes?
        let sequence: Int?
        let base: HexBytes?
        let content: HexBytes?
        let members: [Member]?
    }

    struct Member: Decodable {
        let id: HexBytes
        let content: HexBytes
    }

    static let file: File = (try? PackageFiles.decode("testvectors/writing/snapshots.json", keys: .convertFromSnakeCase))
        ?? File(spec: "", cases: [])

    @Test("the file has every kind of case") func fileLoads() {
        #expect(Self.file.spec == "SECURITY.md §15.2")
        #expect(Set(Self.file.cases.map(\.type)) == ["content", "record", "group", "reject-content", "reject-record", "reject-group"])
        // Both versions: today's packed records and version 1's, which older vaults hold.
        #expect(Set(Self.file.cases.filter { $0.type == "record" }.map { $0.encoded.bytes.first }) == [1, 2])
        // Groups of both versions: today's (4, compact deltas, id-bound checks) and version 3's.
        #expect(Set(Self.file.cases.filter { $0.type == "group" }.map { $0.encoded.bytes.first }) == [3, 4])
    }

    @Test("contents decode with their block ids and encode to the same bytes", arguments: file.cases.filter { $0.type == "content" })
    func contents(_ vector: Case) throws {
        let content = try SnapshotContent.decode(vector.encoded.bytes)
        #expect(content.blocks.map(\.id.bytes) == (vector.blocks ?? []).map(\.bytes), "\(vector.name)")
        #expect(SnapshotContent.encode(content) == vector.encoded.bytes, "\(vector.name)")
    }

    @Test("records parse to their fields, encode to the same bytes, and give their content in order")
    func records() throws {
        var previous: [UInt8] = []
        for vector in Self.file.cases where vector.type == "record" {
            let record = try SnapshotRecord(parsing: vector.encoded.bytes)
            let content = try #require(vector.content).bytes
            #expect(record.encoded() == vector.encoded.bytes, "\(vector.name)")
            #expect(record.form.name == vector.form && record.sequence == vector.sequence, "\(vector.name)")
            #expect(record.document.bytes == vector.document?.bytes && record.base == vector.base?.bytes, "\(vector.name)")
            let rebuilt = record.form == .keyframe ? try record.payload() : try SnapshotDelta(parsing: try record.payload()).apply(to: previous)
            #expect(rebuilt == content && record.digest == SHA256.hash(content), "\(vector.name)")
            previous = content
        }
    }

    @Test("a group parses to its fields, its members' deltas applied in turn give their contents, and it encodes to what parses the same")
    func groups() throws {
        let delta = try #require(Self.file.cases.last { $0.type == "record" && $0.form == "delta" }?.content).bytes
        for vector in Self.file.cases where vector.type == "group" {
            let group = try SnapshotGroup(parsing: vector.encoded.bytes)
            #expect(group.document.bytes == vector.document?.bytes && group.sequence == vector.sequence && group.base == vector.base?.bytes)
            let members = try #require(vector.members)
            #expect(group.members.count == members.count, "\(vector.name)")
            // The delta case is snapshot 2; a version-4 member may name an earlier snapshot's content instead of a delta.
            var previous = delta, passed = [2: delta]
            for (index, (member, expected)) in zip(group.members, members).enumerated() {
                previous = try member.reference.map { try #require(passed[$0]) } ?? SnapshotDelta(parsing: member.delta).apply(to: previous)
                passed[group.sequence + index] = previous
                #expect(previous == expected.content.bytes, "\(vector.name)")
                if group.version == SnapshotGroup.version3 {
                    #expect(member.id?.bytes == expected.id.bytes && member.digest == SHA256.hash(previous), "\(vector.name)")
                } else {
                    // Version 4 stores no id: the check binds it, SHA-256(id || content)[0..16].
                    let id = try SnapshotID(bytes: expected.id.bytes)
                    #expect(member.id == nil && member.digest == SnapshotGroup.check(id, previous), "\(vector.name)")
                }
            }
            // The packed bytes are not canonical (§15.2): what is written parses to the same group.
            #expect(try SnapshotGroup(parsing: group.encoded()) == group)
        }
    }

    @Test("damaged contents and records are refused as damagedRecord",
          arguments: file.cases.filter { $0.type.hasPrefix("reject-") })
    func rejections(_ vector: Case) {
        let bytes = vector.encoded.bytes
        if vector.type == "reject-content" {
            #expect(writingCode { try SnapshotContent.decode(bytes) } == .damagedRecord, "\(vector.name)")
        } else if vector.type == "reject-group" {
            #expect(writingCode { try SnapshotGroup(parsing: bytes) } == .damagedRecord, "\(vector.name)")
        } else {
            // A packed payload is unpacked when it is read: parsing and reading it is what a restore does.
            #expect(writingCode { try SnapshotRecord(parsing: bytes).payload() } == .damagedRecord, "\(vector.name)")
        }
    }
}
