import CryptoVault
import Foundation
import Registers
import Testing
import TestSupport
@testable import Writing

/// testvectors/writing/model.json (written by testvectors/generate.py from the independent code in
/// testvectors/independent/writing_reader.py): the Swift encodings must give every byte, decode
/// every value back, and refuse every damaged block value; a project's name lookup hash (§14.1)
/// must be the file's from the master key, vault id, project id and name.
@Suite("Writing model known answers (testvectors/writing/model.json)")
struct WritingVectorTests {
    struct File: Decodable {
        let spec: String
        let cases: [Case]
    }

    struct Case: Decodable {
        let type: String
        let name: String
        let kind: String?
        let text: String?
        let rows: [[String]]?
        let entryName: String?
        let body: String?
        let fields: [String: String]?
        let masterKey: HexBytes?
        let vaultId: HexBytes?
        let projectId: HexBytes?
        let projectName: String?
        let encoded: HexBytes
    }

    static let file: File = (try? PackageFiles.decode("testvectors/writing/model.json", keys: .convertFromSnakeCase))
        ?? File(spec: "", cases: [])

    @Test("the file has every kind of case") func fileLoads() {
        #expect(Self.file.spec == "SECURITY.md §14.1, §14.4-14.5")
        #expect(Set(Self.file.cases.map(\.type)) == ["block", "entry", "reject-block", "project-name-lookup"])
    }

    @Test("blocks encode to the file's bytes and decode back", arguments: file.cases.filter { $0.type == "block" })
    func blocks(_ vector: Case) throws {
        let name = try #require(vector.kind)
        let kind = try #require(BlockEncoding.kind(named: name), "\(vector.name)")
        let block = Block(id: try BlockID.random(), kind: kind, text: vector.text ?? "", rows: vector.rows ?? [])
        #expect(BlockEncoding.encode(block) == vector.encoded.bytes, "\(vector.name)")
        #expect(try BlockEncoding.decode(vector.encoded.bytes, id: block.id) == block, "\(vector.name)")
    }

    @Test("entries encode to the file's bytes and decode back", arguments: file.cases.filter { $0.type == "entry" })
    func entries(_ vector: Case) throws {
        let name = try #require(vector.kind)
        let kind = try #require(EntryKind(rawValue: name))
        var fields: [FieldSlot: String] = [:]
        for (slot, value) in vector.fields ?? [:] { fields[try #require(FieldSlot(rawValue: slot))] = value }
        let entry = ProjectEntry(id: try EntryID.random(), kind: kind, name: vector.entryName ?? "", body: vector.body ?? "",
                                 fields: fields, orderKey: "i")
        #expect(EntryEncoding.encode(entry) == vector.encoded.bytes, "\(vector.name)")
        #expect(try EntryEncoding.decode(vector.encoded.bytes, id: entry.id, kind: kind, orderKey: "i") == entry)
    }

    @Test("a project's name lookup hash is the file's: keyed by the master key and vault, bound to the project id, the name taken as NFC",
          arguments: file.cases.filter { $0.type == "project-name-lookup" })
    func nameLookups(_ vector: Case) throws {
        let key = try NameLookupKey(masterKey: try SecureBytes(copying: try #require(vector.masterKey).bytes),
                                    vaultID: try VaultID(bytes: try #require(vector.vaultId).bytes), domain: WritingStore.nameLookupDomain)
        let project = try ProjectID(bytes: try #require(vector.projectId).bytes)
        #expect(WritingStore.nameLookup(of: project, named: try #require(vector.projectName), key: key) == vector.encoded.bytes, "\(vector.name)")
    }

    @Test("damaged block values are refused as damagedRecord", arguments: file.cases.filter { $0.type == "reject-block" })
    func rejections(_ vector: Case) throws {
        let bytes = vector.encoded.bytes
        #expect(writingCode { try BlockEncoding.decode(bytes, id: try BlockID.random()) } == .damagedRecord, "\(vector.name)")
    }

}
