import Foundation
import Testing
import TestSupport
@testable import Writing

/// testvectors/writing/edit-events.json (written by testvectors/generate.py from SECURITY.md §15.5):
/// sealed edit event values parse to their documents and word changes and encode to the same
/// bytes; damaged ones are refused as damagedRecord.
@Suite("Edit event known answers (testvectors/writing/edit-events.json)")
struct EditEventVectorTests {
    struct File: Decodable {
        let spec: String
        let cases: [Case]
    }

    struct Case: Decodable {
        let type: String
        let name: String
        let encoded: HexBytes
        let documents: [HexBytes]?
        let words: [Int]?
    }

    static let file: File = (try? PackageFiles.decode("testvectors/writing/edit-events.json", keys: .convertFromSnakeCase))
        ?? File(spec: "", cases: [])

    @Test("the file has both kinds of case") func fileLoads() {
        #expect(Self.file.spec == "SECURITY.md §15.5")
        #expect(Set(Self.file.cases.map(\.type)) == ["record", "reject-record"])
    }

    @Test("records parse to their documents and word changes and encode to the same bytes", arguments: file.cases.filter { $0.type == "record" })
    func records(_ vector: Case) throws {
        let record = try EditEventRecord(parsing: vector.encoded.bytes)
        #expect(record.documents.map(\.document.bytes) == (vector.documents ?? []).map(\.bytes), "\(vector.name)")
        #expect(record.documents.map(\.wordDelta) == vector.words, "\(vector.name)")
        #expect(record.encoded() == vector.encoded.bytes, "\(vector.name)")
    }

    @Test("damaged records are refused as damagedRecord", arguments: file.cases.filter { $0.type == "reject-record" })
    func rejects(_ vector: Case) {
        do {
            _ = try EditEventRecord(parsing: vector.encoded.bytes)
            Issue.record("\(vector.name): accepted")
        } catch {
            #expect(error.code == .damagedRecord, "\(vector.name): \(error.message)")
        }
    }
}
