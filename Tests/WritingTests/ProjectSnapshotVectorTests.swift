import Foundation
import Testing
import TestSupport
@testable import Writing

/// testvectors/writing/project-snapshots.json (written by testvectors/generate.py from SECURITY.md
/// §15.2): project snapshot values parse to their nodes and encode to the same bytes; damaged ones
/// are refused as damagedRecord.
@Suite("Project snapshot known answers (testvectors/writing/project-snapshots.json)")
struct ProjectSnapshotVectorTests {
    struct File: Decodable {
        let spec: String
        let cases: [Case]
    }

    struct Node: Decodable {
        let id: HexBytes
        let kind: String
        let parent: HexBytes?
        let orderKey: String
        let title: String
        let snapshot: HexBytes?
    }

    struct Case: Decodable {
        let type: String
        let name: String
        let encoded: HexBytes
        let project: HexBytes?
        let nodes: [Node]?
    }

    static let file: File = (try? PackageFiles.decode("testvectors/writing/project-snapshots.json", keys: .convertFromSnakeCase))
        ?? File(spec: "", cases: [])

    @Test("the file has both kinds of case") func fileLoads() {
        #expect(Self.file.spec == "SECURITY.md §15.2")
        #expect(Set(Self.file.cases.map(\.type)) == ["record", "reject-record"])
    }

    @Test("records parse to their nodes and encode to the same bytes", arguments: file.cases.filter { $0.type == "record" })
    func records(_ vector: Case) throws {
        let record = try ProjectSnapshotRecord(parsing: vector.encoded.bytes)
        let nodes = vector.nodes ?? []
        #expect(record.project.bytes == vector.project?.bytes, "\(vector.name)")
        #expect(record.nodes.map(\.id.bytes) == nodes.map(\.id.bytes) && record.nodes.map(\.kind.rawValue) == nodes.map(\.kind), "\(vector.name)")
        #expect(record.nodes.map { $0.parent?.bytes } == nodes.map { $0.parent?.bytes }, "\(vector.name)")
        #expect(record.nodes.map(\.orderKey) == nodes.map(\.orderKey) && record.nodes.map(\.title) == nodes.map(\.title), "\(vector.name)")
        #expect(record.nodes.map { $0.snapshot?.bytes } == nodes.map { $0.snapshot?.bytes }, "\(vector.name)")
        #expect(record.encoded() == vector.encoded.bytes, "\(vector.name)")
    }

    @Test("damaged records are refused as damagedRecord", arguments: file.cases.filter { $0.type == "reject-record" })
    func rejects(_ vector: Case) {
        do {
            _ = try ProjectSnapshotRecord(parsing: vector.encoded.bytes)
            Issue.record("\(vector.name): accepted")
        } catch {
            #expect(error.code == .damagedRecord, "\(vector.name): \(error.message)")
        }
    }
}
