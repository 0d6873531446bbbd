import AuditChain
import CryptoVault
import Foundation
@testable import PeerChannel
import Testing
import TestSupport

/// The Swift witness against testvectors/witness/cosignatures.json, written from SECURITY.md §9.11 by
/// testvectors/independent/witness_vectors.py (pure-Python Ed25519): every case is run, and counted.
@Suite("Known answers for witnessing (testvectors/witness)")
struct WitnessVectorTests {
    struct File: Decodable {
        struct Witness: Decodable {
            let signing_seed, signing_public_key, noise_public_key, device_id, name, key_id, vkey: String
        }
        struct Log: Decodable { let vault_id, origin, genesis_public_key, epoch_1_public_key: String }
        struct Case: Decodable, Sendable, CustomTestStringConvertible {
            let name: String
            let old_size: UInt64
            let old_root: String
            let tree_size: UInt64
            let root: String
            let checkpoint_epoch: Int
            let checkpoint_note: String
            let key_transitions: [String]
            let consistency_proof: [String]
            let request, message, cosignature, cosignature_line, answer, cosigned_note: String
            let timestamp: UInt64
            var testDescription: String { name }
        }
        struct Conflict: Decodable, Sendable {
            let name: String
            let known_size: UInt64
            let reason: String
            let answer: String
        }
        let witness: Witness
        let log: Log
        let cases: [Case]
        let conflicts: [Conflict]
    }

    // A missing or unreadable file must fail the suite, not skip it.
    static let file: File = try! PackageFiles.decode("testvectors/witness/cosignatures.json")

    /// The vector file's hex, by TestSupport's one decoder (malformed hex stops the test here).
    static func bytes(_ hex: String) -> [UInt8] { [UInt8](hex: hex)! }

    @Test("the file holds every case: 2 cosignatures and 2 conflicts")
    func counts() {
        #expect(Self.file.cases.count == 2 && Self.file.conflicts.count == 2)
    }

    @Test("the witness's name, key ID and vkey derive from its device keys")
    func witnessIdentity() throws {
        let witness = Self.file.witness
        let derived = DeviceProfile.deriveIdentifier(signingPublicKey: Self.bytes(witness.signing_public_key),
                                                     noisePublicKey: Self.bytes(witness.noise_public_key))
        #expect(derived.hex == witness.device_id)
        #expect(WitnessIdentity.name(deviceID: derived) == witness.name)
        let key = try CosignatureVerifierKey(name: witness.name, publicKey: Self.bytes(witness.signing_public_key))
        #expect(key.keyID == UInt32(witness.key_id, radix: 16) && key.vkey == witness.vkey)
        #expect(try Ed25519PrivateKey(seed: SecureBytes(copying: Self.bytes(witness.signing_seed))).publicKey == Self.bytes(witness.signing_public_key))
    }

    @Test("each request parses to its parts and back; the witness's checks accept it; the cosignature, line and answer match",
          arguments: file.cases)
    func cosignatureCase(_ vector: File.Case) throws {
        let request = try WitnessRequest(parsing: Self.bytes(vector.request))
        #expect(request.serialized() == Self.bytes(vector.request))
        #expect(request.oldSize == vector.old_size && request.genesisPublicKey == Self.bytes(Self.file.log.genesis_public_key))
        #expect(request.consistencyProof == vector.consistency_proof.map(Self.bytes))
        #expect(request.keyTransitions == vector.key_transitions.map { Array($0.utf8) })
        #expect(request.checkpointNote == Array(vector.checkpoint_note.utf8))

        let genesis = Self.bytes(Self.file.log.genesis_public_key)
        let pinned = vector.old_size == 0 ? nil : WitnessedLog(
            origin: Self.file.log.origin, genesisPublicKey: genesis, epoch: 0, epochPublicKey: genesis, treeSize: vector.old_size,
            rootHash: Self.bytes(vector.old_root), cosignedNote: "", cosignedAt: 0)
        guard case .verified(let verified) = try WitnessCheck(request: request, pinned: pinned).run() else {
            Issue.record("the witness did not accept \(vector.name)"); return
        }
        #expect(verified.epoch == vector.checkpoint_epoch && verified.checkpoint.treeSize == vector.tree_size)
        #expect(verified.checkpoint.rootHash == Self.bytes(vector.root))

        let seed = try SecureBytes(copying: Self.bytes(Self.file.witness.signing_seed))
        let cosigner = try Cosigner(name: Self.file.witness.name, privateKey: try Ed25519PrivateKey(seed: seed))
        #expect(CosignatureV1.message(timestamp: vector.timestamp, checkpointBody: verified.checkpoint.body) == Self.bytes(vector.message))
        let line = try cosigner.cosign(verified.checkpoint, timestamp: vector.timestamp)
        #expect(line.signature == Array(Self.bytes(vector.cosignature)))
        #expect(line.line == vector.cosignature_line)
        #expect(WitnessAnswer.cosigned(line).serialized() == Self.bytes(vector.answer))
        #expect(try WitnessAnswer(parsing: Self.bytes(vector.answer)) == .cosigned(line))
        let cosigned = try SignedNote(parsing: vector.cosigned_note)
        #expect(try cosigner.verifierKey.verifyCosignature(on: cosigned) == vector.timestamp)
    }

    @Test("conflict answers parse to the known size and reason, and back", arguments: file.conflicts.map { $0.name })
    func conflictCase(_ name: String) throws {
        let vector = try #require(Self.file.conflicts.first { $0.name == name })
        let reason: WitnessAnswer.ConflictReason = vector.reason == "rollback" ? .rollback : .oldSizeMismatch
        #expect(try WitnessAnswer(parsing: Self.bytes(vector.answer)) == .conflict(knownSize: vector.known_size, reason: reason))
        #expect(WitnessAnswer.conflict(knownSize: vector.known_size, reason: reason).serialized() == Self.bytes(vector.answer))
    }
}

