import AuditChain
import Foundation
import Testing
@testable import Console

/// What the audit page offers an auditor: an entry's inclusion proof that checks against the log's
/// root with no vault, and the export that verifies with the genesis key alone.
@Suite struct ConsoleAuditTests {
    @Test("an entry's inclusion proof from the console verifies by RFC 9162; a changed leaf or index does not")
    func inclusionProof() throws {
        let fixture = try ConsoleFixture()
        _ = try fixture.json("POST", "/api/projects", ["name": "Book", "register": "fiction"])
        let proof = try #require(try fixture.json("GET", "/api/audit/entries/1/proof") as? [String: Any])
        let decode = { (text: Any?) throws -> [UInt8] in
            guard let text = text as? String, let data = Data(base64Encoded: text) else { throw FixtureError("not base64: \(String(describing: text))") }
            return [UInt8](data)
        }
        let leaf = try decode(proof["leaf_hash"]), root = try decode(proof["root"])
        let path = try (try #require(proof["proof"] as? [Any])).map(decode)
        let size = try #require(proof["size"] as? Int)
        #expect(size >= 2 && size <= fixture.actions.count)
        try MerkleVerification.verifyInclusion(leafHash: leaf, index: 1, treeSize: size, proof: path, rootHash: root)
        #expect(throws: AuditChainError.self) {
            try MerkleVerification.verifyInclusion(leafHash: leaf, index: 0, treeSize: size, proof: path, rootHash: root)
        }
        var altered = leaf
        altered[0] ^= 1
        #expect(throws: AuditChainError.self) {
            try MerkleVerification.verifyInclusion(leafHash: altered, index: 1, treeSize: size, proof: path, rootHash: root)
        }
    }

    @Test("a proof for an entry the log does not have is 404, and a malformed entry number 400", arguments: [
        ("/api/audit/entries/999999/proof", 404, "notFound"),
        ("/api/audit/entries/-1/proof", 400, "invalidBody"),
        ("/api/audit/entries/01/proof", 400, "invalidBody"),
        ("/api/audit/entries/one/proof", 400, "invalidBody"),
    ])
    func proofRefusals(_ path: String, _ status: Int, _ code: String) throws {
        let fixture = try ConsoleFixture()
        let response = try fixture.request("GET", path)
        #expect(response.status == status && response.errorCode == code, "\(path): \(response.status) \(response.text)")
    }

    @Test("the downloaded export verifies with the genesis key the page shows, and the download is itself recorded")
    func exportVerifiesWithTheGenesisKey() throws {
        let fixture = try ConsoleFixture()
        _ = try fixture.json("POST", "/api/projects", ["name": "Book", "register": "fiction"])
        let vkey = try #require((try fixture.json("GET", "/api/audit/key") as? [String: Any])?["vkey"] as? String)
        let response = try fixture.request("GET", "/api/audit/export")
        #expect(response.status == 200 && response.field("content-disposition")?.hasPrefix("attachment;") == true)
        let report = try AuditVerifier(snapshot: try AuditExport.parse(response.body), genesis: try NoteVerifierKey(vkey: vkey)).verify()
        #expect(report.entryCount >= 2)
        #expect(fixture.actions.last == "audit.export")
        var tampered = response.body
        tampered[tampered.count / 2] ^= 0x01
        #expect(throws: (any Error).self) {
            try AuditVerifier(snapshot: try AuditExport.parse(tampered), genesis: try NoteVerifierKey(vkey: vkey)).verify()
        }
    }
}
