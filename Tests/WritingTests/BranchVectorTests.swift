import CryptoVault
import Foundation
import Testing
import TestSupport
@testable import Writing

/// testvectors/writing/branches.json (written by testvectors/generate.py from the spec, with the
/// independent block encoder): sealed branch values parse to the file's fields and encode back to
/// its bytes, and damage is refused.
@Suite("Branch known answers (testvectors/writing/branches.json)")
struct BranchVectorTests {
    struct File: Decodable {
        let spec: String
        let cases: [Case]
    }

    struct Case: Decodable {
        let type: String
        let name: String
        let encoded: HexBytes
        let document: HexBytes?
        let base: HexBytes?
        let content: HexBytes?
        let blocks: [HexBytes]?
    }

    static let file: File = (try? PackageFiles.decode("testvectors/writing/branches.json", keys: .convertFromSnakeCase))
        ?? File(spec: "", cases: [])

    @Test("the file has every kind of case") func fileLoads() {
        #expect(Self.file.spec == "SECURITY.md §15.3")
        #expect(Set(Self.file.cases.map(\.type)) == ["record", "reject-record"])
    }

    @Test("records parse to their fields, their content to blocks with the file's ids, and encode to the same bytes",
          arguments: file.cases.filter { $0.type == "record" })
    func records(_ vector: Case) throws {
        let record = try BranchRecord(parsing: vector.encoded.bytes)
        #expect(record.document.bytes == vector.document?.bytes && record.base.bytes == vector.base?.bytes, "\(vector.name)")
        #expect(record.content == vector.content?.bytes, "\(vector.name)")
        #expect(try SnapshotContent.decode(record.content).blocks.map(\.id.bytes) == (vector.blocks ?? []).map(\.bytes), "\(vector.name)")
        #expect(record.encoded() == vector.encoded.bytes, "\(vector.name)")
        #expect(record.parts() == [vector.encoded.bytes], "a record under 1 MiB is one part")
    }

    @Test("damaged records are refused as damagedRecord", arguments: file.cases.filter { $0.type == "reject-record" })
    func rejections(_ vector: Case) {
        let bytes = vector.encoded.bytes
        #expect(writingCode { try BranchRecord(parsing: bytes) } == .damagedRecord, "\(vector.name)")
    }
}
