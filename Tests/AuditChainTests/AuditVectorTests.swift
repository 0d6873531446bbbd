@testable import AuditChain
@testable import CryptoVault
import Foundation
import Testing
import TestSupport

/// Checks the audit log's Swift code against the known-answer files in testvectors/audit/, written by
/// testvectors/generate.py with the independent implementation testvectors/independent/audit_verifier.py
/// (and PyNaCl for Ed25519), which was written from SECURITY.md §8 alone:
///
/// - entries.json: `AuditEntry` encodes each case's fields to its bytes, decodes the bytes back to the
///   fields, gives its leaf hash, and refuses every malformed encoding;
/// - details.json: the audit keys, `AuditLog.encodeDetails`, the AD, sealing with the case's nonce,
///   `AuditLog.detailHash`, `AuditLogReader.details(of:vaultID:keys:)` and `AuditLog.sealDetails`;
/// - merkle.json: `MerkleTree` roots and proofs, `MerkleFrontier`, `MerkleVerification` (valid and refused);
/// - notes.json: the epoch keys and vkeys, checkpoint and key-transition notes signed byte for byte,
///   a witness cosignature, refused notes and transition texts;
/// - exports.json: `AuditExport.parse` and `AuditVerifier` accept each valid export with its counts (and
///   `AuditExport.write` gives back its bytes) and refuse each invalid one with the expected kind.
@Suite("Known-answer vectors for the audit log (testvectors/audit)")
struct AuditVectorTests {
    @Test("every audit vector file is present, well-formed, non-empty and checked by this suite")
    func manifest() throws {
        let directory = try AuditVectorFile.directory()
        let present = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }
        #expect(Set(present) == Set(AuditVectorFile.files), "testvectors/audit holds \(present.sorted())")
        let knownTypes: [String: Set<String>] = [
            "entries.json": ["log", "entry", "reject-decode"], "details.json": ["keys", "seal", "hash"],
            "merkle.json": ["root", "inclusion", "consistency", "reject-inclusion", "reject-consistency"],
            "notes.json": ["key", "checkpoint", "transition", "cosignature", "reject-note", "reject-transition"],
            "exports.json": ["valid", "invalid"],
        ]
        for name in AuditVectorFile.files {
            let file = try AuditVectorFile.load(name)
            #expect(!file.cases.isEmpty, "\(name) has no cases")
            let types = Set(try file.cases.map { try AuditVectorFile.string($0, "type") })
            #expect(types == knownTypes[name], "\(name): case types \(types.sorted())")
        }
    }

    // MARK: §8.2 entries

    @Test("entries (§8.2): fields encode to the vector's bytes, decode back, and give its leaf hash; the log chains")
    func entries() throws {
        let cases = try AuditVectorFile.load("entries.json").cases
        var previousLogLeaf = [UInt8](repeating: 0, count: 32)
        var checked = 0
        for c in cases where ["log", "entry"].contains(c["type"] as? String) {
            let name = try AuditVectorFile.string(c, "name")
            let entry = try AuditVectorFile.entry(c)
            let encoded = try AuditVectorFile.hex(c, "encoded")
            #expect(entry.encoded() == encoded, "\(name): encoding")
            #expect(try encoded.count == (try AuditVectorFile.int(c, "encoded_size")), "\(name): size")
            let leafHash = try AuditVectorFile.hex(c, "leaf_hash")
            #expect(entry.leafHash == leafHash, "\(name): leaf hash")
            #expect(MerkleHash.leaf(encoded) == leafHash, "\(name): SHA-256(0x00 || encoding)")
            let decoded = try AuditEntry(decoding: encoded)
            #expect(decoded == entry, "\(name): decoding gives the fields back")
            #expect(try Array(decoded.actor.utf8) == (try AuditVectorFile.hex(c, "actor_utf8")), "\(name): actor bytes")
            #expect(decoded.encoded() == encoded, "\(name): decode then encode is the identity")
            if c["type"] as? String == "log" {
                #expect(entry.seq == UInt64(checked), "\(name): the log's entries are in order")
                #expect(entry.previousHash == previousLogLeaf, "\(name): chains to the entry before")
                previousLogLeaf = leafHash
                checked += 1
            }
        }
        #expect(checked == 8, "entries.json has the 8 log entries")
    }

    @Test("entries (§8.2): every reject-decode case is refused as a malformed entry")
    func entryRefusals() throws {
        let cases = try AuditVectorFile.load("entries.json").cases.filter { $0["type"] as? String == "reject-decode" }
        #expect(cases.count >= 20)
        for c in cases {
            let name = try AuditVectorFile.string(c, "name")
            #expect(try AuditVectorFile.string(c, "reason") == "malformed-entry", "\(name): unknown reason")
            let bytes = try AuditVectorFile.hex(c, "encoded")
            do {
                let entry = try AuditEntry(decoding: bytes)
                Issue.record("\(name): decoded as \(entry.action) seq \(entry.seq)")
            } catch let error as AuditChainError {
                #expect(error.code == .malformedEntry, "\(name): \(error.code)")
            }
        }
    }

    // MARK: §8.3 details

    @Test("audit keys (§8.3): HKDF(MK, salt = vault id, \"vaultctl audit keys v1\", 64) = sealing key || hashing key")
    func auditKeys() throws {
        let cases = try AuditVectorFile.load("details.json").cases.filter { $0["type"] as? String == "keys" }
        #expect(cases.count == 2)
        for c in cases {
            let name = try AuditVectorFile.string(c, "name")
            let masterKey = try SecureBytes(copying: try AuditVectorFile.hex(c, "master_key"))
            let vaultID = try AuditVectorFile.hex(c, "vault_id")
            #expect(try AuditKeys.info == (try AuditVectorFile.hex(c, "hkdf_info")), "\(name): info")
            let output = try HKDF.deriveKey(inputKeyMaterial: masterKey, salt: vaultID, info: AuditKeys.info, outputCount: 64)
            #expect(try output.exposedCopy() == (try AuditVectorFile.hex(c, "hkdf_output")), "\(name): HKDF output")
            let keys = try AuditKeys(masterKey: masterKey, vaultID: try VaultID(bytes: vaultID))
            #expect(try keys.sealingKey.exposedCopy() == (try AuditVectorFile.hex(c, "sealing_key")), "\(name): sealing key")
            #expect(try keys.hashingKey.exposedCopy() == (try AuditVectorFile.hex(c, "hashing_key")), "\(name): hashing key")
        }
    }

    @Test("details (§8.3): plaintext, AD, sealing with the vector's nonce, detail hashes, unsealing, refusals")
    func details() throws {
        let cases = try AuditVectorFile.load("details.json").cases.filter { $0["type"] as? String == "seal" }
        #expect(cases.count >= 5)
        for c in cases {
            let name = try AuditVectorFile.string(c, "name")
            let vaultID = try VaultID(bytes: try AuditVectorFile.hex(c, "vault_id"))
            let seq = try AuditVectorFile.uint64(c, "seq")
            let keys = AuditKeys(sealingKey: try SecureBytes(copying: try AuditVectorFile.hex(c, "sealing_key")),
                                 hashingKey: try SecureBytes(copying: try AuditVectorFile.hex(c, "hashing_key")))
            let given = try AuditVectorFile.list(c, "details").map { detail in
                VaultEvent.Detail(try AuditVectorFile.string(detail, "name"),
                                  String(decoding: try AuditVectorFile.hex(detail, "value_utf8"), as: UTF8.self))
            }
            let sortedNames = try #require(c["sorted_names"] as? [String], "\(name): sorted_names")
            let sorted = try sortedNames.map { name in try #require(given.first { $0.name == name }) }
            #expect(given.sorted { $0.name < $1.name }.map(\.name) == sortedNames, "\(name): names sort by bytes")

            let plaintext = try AuditVectorFile.hex(c, "plaintext")
            #expect(AuditLog.encodeDetails(sorted) == plaintext, "\(name): details plaintext")
            let ad = try AuditVectorFile.hex(c, "ad")
            #expect(AuditLog.detailsAssociatedData + vaultID.bytes + AuditEntry.bigEndian(seq, width: 8) == ad, "\(name): AD")
            let nonce = try AuditVectorFile.hex(c, "nonce")
            let sealed = try AuditVectorFile.hex(c, "sealed_details")
            #expect(try nonce + XChaChaPoly.seal(plaintext, key: keys.sealingKey, nonce: nonce, authenticating: ad) == sealed,
                    "\(name): sealed details")

            let expectedHashes = try AuditVectorFile.list(c, "detail_hashes").map { detail in
                AuditEntry.DetailHash(name: try AuditVectorFile.string(detail, "name"), hash: try AuditVectorFile.hex(detail, "hash"))
            }
            for (detail, expected) in zip(sorted, expectedHashes) {
                #expect(AuditLog.detailHash(name: detail.name, value: detail.value, key: keys.hashingKey) == expected.hash,
                        "\(name): detail hash of \(detail.name)")
            }

            let entry = AuditVectorFile.entry(seq: seq, hashes: expectedHashes, sealed: sealed)
            #expect(try AuditLogReader.details(of: entry, vaultID: vaultID, keys: keys) == sorted, "\(name): unsealed")

            // The library's own sealing (a random nonce) gives the same hashes and opens to the same details.
            let made = try AuditLog(checkpointer: nil).sealDetails(given, seq: seq, vaultID: vaultID, keys: keys)
            #expect(made.hashes == expectedHashes, "\(name): sealDetails hashes, in name order")
            #expect(made.sealed.count == sealed.count, "\(name): sealDetails size")
            #expect(try AuditLogReader.details(of: AuditVectorFile.entry(seq: seq, hashes: made.hashes, sealed: made.sealed),
                                               vaultID: vaultID, keys: keys) == sorted, "\(name): sealDetails opens")

            let tampered = try AuditVectorFile.list(c, "must_not_open")
            #expect(tampered.count == 4, "\(name): refusals")
            for t in tampered {
                let change = try AuditVectorFile.string(t, "change")
                let badAD = try AuditVectorFile.hex(t, "ad")
                let badSealed = try AuditVectorFile.hex(t, "sealed_details")
                #expect(throws: (any Error).self, "\(name): \(change) must not open") {
                    try XChaChaPoly.open(Array(badSealed.dropFirst(24)), key: keys.sealingKey, nonce: Array(badSealed.prefix(24)),
                                         authenticating: badAD)
                }
            }
            // Moved to the next entry (another seq in the AD), through the reader.
            if seq < UInt64.max {
                #expect(throws: (any Error).self, "\(name): opened under seq + 1") {
                    try AuditLogReader.details(of: AuditVectorFile.entry(seq: seq + 1, hashes: expectedHashes, sealed: sealed),
                                               vaultID: vaultID, keys: keys)
                }
            }
        }
    }

    @Test("detail hashes (§8.3): HMAC-SHA-256(hashing key, name || 0x00 || value), as `vaultctl audit hash` computes")
    func detailHashes() throws {
        let cases = try AuditVectorFile.load("details.json").cases.filter { $0["type"] as? String == "hash" }
        #expect(cases.count >= 4)
        for c in cases {
            let name = try AuditVectorFile.string(c, "name")
            let key = try SecureBytes(copying: try AuditVectorFile.hex(c, "hashing_key"))
            let value = String(decoding: try AuditVectorFile.hex(c, "value_utf8"), as: UTF8.self)
            #expect(try Array(value.utf8) == (try AuditVectorFile.hex(c, "value_utf8")), "\(name): value bytes kept (no normalisation)")
            #expect(try AuditLog.detailHash(name: try AuditVectorFile.string(c, "field"), value: value, key: key)
                    == (try AuditVectorFile.hex(c, "hash")), "\(name)")
        }
    }

    // MARK: §8.4, §8.9 the tree and proofs

    @Test("the tree (§8.4, §8.9): roots, inclusion and consistency proofs of the log's 8 leaves, made and verified")
    func merkle() throws {
        let file = try AuditVectorFile.load("merkle.json")
        let leaves = try #require(file.root["leaves"] as? [String]).map { try AuditVectorFile.bytes($0) }
        #expect(leaves.count == 8)
        let logLeaves = try AuditVectorFile.load("entries.json").cases.filter { $0["type"] as? String == "log" }
            .map { try AuditVectorFile.hex($0, "leaf_hash") }
        #expect(leaves == logLeaves, "merkle.json's leaves are the log entries' leaf hashes")
        let tree = try MerkleTree(leafHashes: leaves)
        var counts: [String: Int] = [:]
        for c in file.cases {
            let name = try AuditVectorFile.string(c, "name")
            let type = try AuditVectorFile.string(c, "type")
            counts[type, default: 0] += 1
            switch type {
            case "root":
                let size = try AuditVectorFile.int(c, "size")
                let root = try AuditVectorFile.hex(c, "root")
                #expect(try tree.rootHash(size: size) == root, "\(name)")
                #expect(try MerkleTree(leafHashes: Array(leaves.prefix(size))).rootHash == root, "\(name): a tree of that size")
                var frontier = MerkleFrontier()
                for leaf in leaves.prefix(size) { frontier.append(leafHash: leaf) }
                #expect(frontier.rootHash == root, "\(name): frontier")
                #expect(try Data(root).base64EncodedString() == (try AuditVectorFile.string(c, "root_base64")), "\(name): base64")
            case "inclusion":
                let (index, size) = (try AuditVectorFile.int(c, "index"), try AuditVectorFile.int(c, "size"))
                let proof = try AuditVectorFile.hexList(c, "proof")
                #expect(try tree.inclusionProof(index: index, size: size) == proof, "\(name): PATH")
                #expect(try AuditVectorFile.code {
                    try MerkleVerification.verifyInclusion(leafHash: try AuditVectorFile.hex(c, "leaf_hash"), index: index, treeSize: size,
                                                           proof: proof, rootHash: try AuditVectorFile.hex(c, "root"))
                } == nil, "\(name): verifies")
            case "consistency":
                let (size1, size2) = (try AuditVectorFile.int(c, "size1"), try AuditVectorFile.int(c, "size2"))
                let proof = try AuditVectorFile.hexList(c, "proof")
                #expect(try tree.consistencyProof(from: size1, to: size2) == proof, "\(name): PROOF")
                #expect(try AuditVectorFile.code {
                    try MerkleVerification.verifyConsistency(size1: size1, size2: size2, root1: try AuditVectorFile.hex(c, "root1"),
                                                             root2: try AuditVectorFile.hex(c, "root2"), proof: proof)
                } == nil, "\(name): verifies")
            case "reject-inclusion":
                let expected = try AuditVectorFile.proofCode(try AuditVectorFile.string(c, "reason"))
                #expect(try AuditVectorFile.code {
                    try MerkleVerification.verifyInclusion(leafHash: try AuditVectorFile.hex(c, "leaf_hash"),
                                                           index: try AuditVectorFile.int(c, "index"), treeSize: try AuditVectorFile.int(c, "size"),
                                                           proof: try AuditVectorFile.hexList(c, "proof"), rootHash: try AuditVectorFile.hex(c, "root"))
                } == expected, "\(name)")
            case "reject-consistency":
                let expected = try AuditVectorFile.proofCode(try AuditVectorFile.string(c, "reason"))
                #expect(try AuditVectorFile.code {
                    try MerkleVerification.verifyConsistency(size1: try AuditVectorFile.int(c, "size1"), size2: try AuditVectorFile.int(c, "size2"),
                                                             root1: try AuditVectorFile.hex(c, "root1"), root2: try AuditVectorFile.hex(c, "root2"),
                                                             proof: try AuditVectorFile.hexList(c, "proof"))
                } == expected, "\(name)")
            default:
                Issue.record("\(name): unknown type \(type)")
            }
        }
        #expect(counts["root"] == 9 && counts["inclusion"] == 36 && counts["consistency"] == 45, "\(counts)")
    }

    // MARK: §8.5, §8.6, §8.10 notes

    @Test("notes (§8.5, §8.6): epoch keys and vkeys; checkpoints and key transitions signed byte for byte and verified")
    func notes() throws {
        let file = try AuditVectorFile.load("notes.json")
        let origin = try AuditVectorFile.string(file.root, "origin")
        var seen: Set<String> = []
        for c in file.cases {
            let name = try AuditVectorFile.string(c, "name")
            let type = try AuditVectorFile.string(c, "type")
            seen.insert(type)
            switch type {
            case "key":
                let seed = try AuditVectorFile.hex(c, "seed")
                let key = try Ed25519PrivateKey(seed: try SecureBytes(copying: seed))
                #expect(try key.publicKey == (try AuditVectorFile.hex(c, "public_key")), "\(name): public key")
                let verifier = try NoteVerifierKey(name: origin, publicKey: key.publicKey)
                #expect(try NoteKeyID.hex(verifier.keyID) == (try AuditVectorFile.string(c, "key_id")), "\(name): key ID")
                #expect(try verifier.vkey == (try AuditVectorFile.string(c, "vkey")), "\(name): vkey")
                #expect(try NoteVerifierKey(vkey: try AuditVectorFile.string(c, "vkey")) == verifier, "\(name): vkey parses")
            case "checkpoint":
                let key = try NoteVerifierKey(vkey: try AuditVectorFile.string(c, "vkey"))
                let seed = try AuditVectorFile.seed(file, epoch: try AuditVectorFile.int(c, "epoch"))
                let size = try AuditVectorFile.int(c, "size")
                let root = try AuditVectorFile.hex(c, "root")
                let body = try Checkpoint(origin: origin, treeSize: UInt64(size), rootHash: root)
                #expect(try body.body == (try AuditVectorFile.string(c, "body")), "\(name): body")
                let note = try AuditVectorFile.string(c, "note")
                let signingKey = AuditKeyChainStore.SigningKey(epoch: try AuditVectorFile.int(c, "epoch"), privateKey: try Ed25519PrivateKey(seed: seed))
                #expect(try signingKey.signedNote(body.body, origin: origin) == note, "\(name): signed note")
                let parsed = try SignedNote(parsing: note)
                #expect(try parsed.signatures.first?.signature == (try AuditVectorFile.hex(c, "signature")), "\(name): signature")
                let checkpoint = try Checkpoint(verifying: parsed, origin: origin, logKey: key)
                #expect(checkpoint.treeSize == UInt64(size) && checkpoint.rootHash == root && checkpoint == body, "\(name): parsed")
            case "transition":
                let key = try NoteVerifierKey(vkey: try AuditVectorFile.string(c, "vkey"))
                let epoch = try AuditVectorFile.int(c, "epoch")
                let seed = try AuditVectorFile.seed(file, epoch: epoch - 1)
                let transition = KeyTransition(origin: origin, epoch: epoch, publicKey: try AuditVectorFile.hex(c, "public_key"),
                                               after: try Checkpoint(origin: origin, treeSize: UInt64(try AuditVectorFile.int(c, "after_size")),
                                                                     rootHash: try AuditVectorFile.hex(c, "after_root")))
                let text = try AuditVectorFile.string(c, "text")
                #expect(transition.text == text, "\(name): text")
                #expect(try KeyTransition(parsing: text) == transition, "\(name): parses")
                let note = try AuditVectorFile.string(c, "note")
                let signingKey = AuditKeyChainStore.SigningKey(epoch: epoch - 1, privateKey: try Ed25519PrivateKey(seed: seed))
                #expect(try signingKey.signedNote(text, origin: origin) == note, "\(name): signed note")
                let parsed = try SignedNote(parsing: note)
                #expect(try parsed.verify(using: [key]) == [key], "\(name): verifies with the outgoing key")
                #expect(try parsed.body == text && parsed.signatures.first?.signature == (try AuditVectorFile.hex(c, "signature")), "\(name)")
                #expect(throws: AuditChainError.self, "\(name): a transition is not a checkpoint") { try Checkpoint(parsing: text) }
            case "cosignature":
                let witness = try CosignatureVerifierKey(vkey: try AuditVectorFile.string(c, "witness_vkey"))
                #expect(try witness.publicKey == (try AuditVectorFile.hex(c, "witness_public_key")), "\(name): witness key")
                #expect(try NoteKeyID.hex(witness.keyID) == (try AuditVectorFile.string(c, "witness_key_id")), "\(name): witness key ID")
                let timestamp = try AuditVectorFile.uint64(c, "timestamp")
                let note = try SignedNote(parsing: try AuditVectorFile.string(c, "note"))
                #expect(try witness.verifyCosignature(on: note) == timestamp, "\(name): cosignature verifies")
                #expect(try CosignatureV1.message(timestamp: timestamp, checkpointBody: note.body) == (try AuditVectorFile.hex(c, "message")),
                        "\(name): signed message")
                let cosigner = try Cosigner(name: witness.name,
                                            privateKey: try Ed25519PrivateKey(seed: try SecureBytes(copying: try AuditVectorFile.hex(c, "witness_seed"))))
                #expect(try cosigner.cosign(try Checkpoint(parsing: note.body), timestamp: timestamp).line
                        == (try AuditVectorFile.string(c, "cosignature_line")), "\(name): cosignature line")
                let logKey = try NoteVerifierKey(vkey: try AuditVectorFile.string(c, "log_vkey"))
                #expect(try note.verify(using: [logKey]) == [logKey], "\(name): the log's signature still verifies")
            case "reject-note":
                let key = try NoteVerifierKey(vkey: try AuditVectorFile.string(c, "vkey"))
                let reason = try AuditVectorFile.string(c, "reason")
                let text = try AuditVectorFile.string(c, "note")
                let outcome = AuditVectorFile.code { _ = try SignedNote(parsing: text).verify(using: [key]) }
                switch reason {
                case "signature-invalid": #expect(outcome == .signatureInvalid, "\(name): \(String(describing: outcome))")
                case "no-verified-signature": #expect(outcome == .noVerifiedSignature, "\(name): \(String(describing: outcome))")
                case "malformed":
                    #expect(outcome != nil && outcome != .signatureInvalid && outcome != .noVerifiedSignature,
                            "\(name): \(String(describing: outcome))")
                default: Issue.record("\(name): unknown reason \(reason)")
                }
            case "reject-transition":
                #expect(throws: (any Error).self, "\(name)") { try KeyTransition(parsing: try AuditVectorFile.string(c, "text")) }
            default:
                Issue.record("\(name): unknown type \(type)")
            }
        }
        #expect(seen == ["key", "checkpoint", "transition", "cosignature", "reject-note", "reject-transition"])
    }

    // MARK: §8.7, §8.8 exports

    @Test("exports (§8.7, §8.8): valid exports verify with their counts and write back byte for byte; invalid ones fail with their kind")
    func exports() throws {
        let file = try AuditVectorFile.load("exports.json")
        let genesis = try AuditVectorFile.string(file.root, "genesis_vkey")
        var valid = 0, invalid = 0
        for c in file.cases {
            let name = try AuditVectorFile.string(c, "name")
            let bytes = Array(try AuditVectorFile.string(c, "export").utf8)
            let key = try NoteVerifierKey(vkey: try AuditVectorFile.string(c, "vkey"))
            switch try AuditVectorFile.string(c, "type") {
            case "valid":
                valid += 1
                #expect(try SHA256.hash(bytes) == (try AuditVectorFile.hex(c, "export_sha256")), "\(name): the export's bytes")
                let snapshot = try AuditExport.parse(bytes)
                let report = try AuditVerifier(snapshot: snapshot, genesis: key).verify()
                let expected = try AuditVectorFile.object(c, "report")
                #expect(try report.entryCount == (try AuditVectorFile.int(expected, "entries")), "\(name): entries")
                #expect(try report.checkpointCount == (try AuditVectorFile.int(expected, "checkpoints")), "\(name): checkpoints")
                #expect(try report.epochCount == (try AuditVectorFile.int(expected, "epochs")), "\(name): epochs")
                #expect(try report.uncheckpointedEntries == (try AuditVectorFile.int(expected, "unsigned_entries")), "\(name): unsigned entries")
                #expect(try AuditVectorFile.rewrite(snapshot) == bytes, "\(name): AuditExport.write gives back the same bytes")
            case "invalid":
                invalid += 1
                let kind = try AuditVectorFile.string(c, "kind")
                let entry = c["entry"] as? Int
                let outcome = AuditVectorFile.verify(bytes, key: key)
                #expect(outcome.kind == kind, "\(name): expected \(kind), got \(outcome.kind ?? "acceptance") (\(outcome.message))")
                if AuditVectorFile.kindsNamingAnEntry.contains(kind) {
                    #expect(try outcome.entry == entry, "\(name): names entry \(String(describing: outcome.entry)), not \(String(describing: entry))")
                }
            default:
                Issue.record("\(name): unknown type")
            }
        }
        #expect(valid >= 4 && invalid >= 40, "\(valid) valid, \(invalid) invalid")
        #expect(file.cases.first?["vkey"] as? String == genesis)
    }
}

/// Loading testvectors/audit/*.json, and what the cases need built from them.
enum AuditVectorFile: VectorFields {
    static let files = ["entries.json", "details.json", "merkle.json", "notes.json", "exports.json"]
    static let kindsNamingAnEntry: Set<String> = ["entry-malformed", "entry-sequence", "entry-chain", "checkpoint-root", "entries-missing"]

    typealias Malformed = VectorMalformed
    typealias File = VectorFile

    /// <repo>/testvectors/audit.
    static func directory() throws -> URL { PackageFiles.url("testvectors/audit") }

    static func load(_ name: String) throws -> File { try VectorFile.load("testvectors/audit/" + name, spec: "SECURITY.md §8") }

    /// The AuditEntry of an entries.json case.
    static func entry(_ c: [String: Any]) throws -> AuditEntry {
        AuditEntry(seq: try uint64(c, "seq"), time: try int64(c, "time"), deviceID: try AuditDeviceID(bytes: try hex(c, "device_id")),
                   actor: String(decoding: try hex(c, "actor_utf8"), as: UTF8.self), action: try string(c, "action"),
                   compartmentID: try compartment(try hex(c, "compartment_id")), subjectID: try hex(c, "subject_id"),
                   detailHashes: try list(c, "detail_hashes").map { AuditEntry.DetailHash(name: try string($0, "name"), hash: try hex($0, "hash")) },
                   sealedDetails: try hex(c, "sealed_details"), previousHash: try hex(c, "previous_hash"))
    }

    /// A vector's compartment id: none (0 bytes) or one.
    static func compartment(_ bytes: [UInt8]) throws -> CompartmentID? {
        bytes.isEmpty ? nil : try CompartmentID(bytes: bytes)
    }

    /// An entry carrying sealed details at `seq` (the other fields do not enter the details' AEAD).
    static func entry(seq: UInt64, hashes: [AuditEntry.DetailHash], sealed: [UInt8]) -> AuditEntry {
        AuditEntry(seq: seq, time: 0, deviceID: try! AuditDeviceID(bytes: [UInt8](repeating: 0, count: 16)), actor: "test", action: "test",
                   compartmentID: nil, subjectID: [], detailHashes: hashes, sealedDetails: sealed,
                   previousHash: [UInt8](repeating: 0, count: 32))
    }

    /// The seed of epoch `epoch` from notes.json's key cases.
    static func seed(_ file: File, epoch: Int) throws -> SecureBytes {
        guard let c = file.cases.first(where: { $0["type"] as? String == "key" && ($0["epoch"] as? Int) == epoch }) else {
            throw Malformed(description: "no key of epoch \(epoch)")
        }
        return try SecureBytes(copying: try hex(c, "seed"))
    }

    static func proofCode(_ reason: String) throws -> AuditChainErrorCode {
        switch reason {
        case "index": return .indexOutOfRange
        case "size": return .sizeOutOfRange
        case "length": return .wrongProofLength
        case "root": return .rootMismatch
        default: throw Malformed(description: "unknown proof refusal reason \(reason)")
        }
    }

    static func code(_ check: () throws -> Void) -> AuditChainErrorCode? {
        do {
            try check()
            return nil
        } catch let error as AuditChainError {
            return error.code
        } catch {
            return .malformedHash  // not an AuditChainError: never what a vector expects
        }
    }

    /// AuditExport.write of a parsed snapshot, read back.
    static func rewrite(_ snapshot: AuditSnapshot) throws -> [UInt8] {
        let path = NSTemporaryDirectory() + "audit-vector-export-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try AuditExport.write(snapshot, to: try FileDescriptor.createExclusive(path))
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Parses and verifies an export; the §8.7 kind of the first failure (nil when it verified).
    static func verify(_ bytes: [UInt8], key: NoteVerifierKey) -> (kind: String?, entry: Int?, message: String) {
        let snapshot: AuditSnapshot
        do {
            snapshot = try AuditExport.parse(bytes)
        } catch let error as AuditChainError {
            return (error.code == .malformedEntry && error.message.hasPrefix("not a valid audit export") ? "malformed-export" : "unexpected \(error.code)",
                    nil, error.message)
        } catch {
            return ("unexpected \(error)", nil, "\(error)")
        }
        do {
            _ = try AuditVerifier(snapshot: snapshot, genesis: key).verify()
            return (nil, nil, "verified")
        } catch let failure as AuditVerificationFailure {
            return (kind(of: failure.reason), failure.entry, failure.reason)
        } catch {
            return ("unexpected \(error)", nil, "\(error)")
        }
    }

    /// The §8.7 kind of an AuditVerifier failure, from its reason.
    static func kind(of reason: String) -> String {
        let patterns: [(String, String)] = [
            ("genesis", #"^the log has no genesis key|^the log's genesis key is not the trusted key"#),
            ("key-chain", #"^audit key epoch \d+ is out of order|^the introduction of key epoch|^a key transition is|^a key in the chain"#),
            ("checkpoint-order", #"^checkpoint \d+ goes back in size or epoch"#),
            ("checkpoint", #"^checkpoint \d+ "#),
            ("transition", #"^key epoch \d+ was introduced after a checkpoint|^a checkpoint of epoch \d+ claims an earlier state"#),
            ("entry-malformed", #"^entry \d+ does not decode"#),
            ("entry-sequence", #"^entry \d+ carries sequence number|^entry \d+ is missing"#),
            ("entry-chain", #"^entry \d+ does not chain"#),
            ("checkpoint-root", #"^the checkpoint of \d+ entries does not match"#),
            ("entries-missing", #"^a checkpoint covers \d+ entries"#),
        ]
        for (kind, pattern) in patterns where reason.range(of: pattern, options: .regularExpression) != nil { return kind }
        return "unclassified"
    }
}
