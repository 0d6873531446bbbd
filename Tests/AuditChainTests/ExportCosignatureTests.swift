@testable import AuditChain
@testable import CryptoVault
import Foundation
import Testing

/// §8.8, §8.10: an export carries the witnesses' cosignatures and verify-export checks them.
@Suite("Audit export: witness cosignatures are carried and checked offline")
struct ExportCosignatureTests {
    static let origin = "vaultctl/00112233445566778899aabbccddeeff"

    struct Log {
        let key: Ed25519PrivateKey
        let checkpoint: Checkpoint
        let note: SignedNote

        init(size: UInt64 = 0) throws {
            key = try Ed25519PrivateKey()
            checkpoint = try Checkpoint(origin: ExportCosignatureTests.origin, treeSize: size, rootHash: MerkleHash.emptyRoot)
            note = try SignedNote.sign(body: checkpoint.body, signers: [try NoteSigner(name: ExportCosignatureTests.origin, privateKey: key)])
        }

        func cosigned(by witness: Ed25519PrivateKey, name: String, at time: UInt64) throws -> String {
            let line = try Cosigner(name: name, privateKey: witness).cosign(checkpoint, timestamp: time)
            return try SignedNote(body: note.body, signatures: note.signatures + [line]).serialized()
        }

        func snapshot(_ cosignatures: [ExportedCosignature]) -> AuditSnapshot {
            AuditSnapshot(origin: ExportCosignatureTests.origin, keys: [.init(epoch: 0, publicKey: key.publicKey, introduction: nil)],
                          checkpoints: [.init(epoch: 0, note: note.serialized())], cosignatures: cosignatures, entries: .encoded([]))
        }

        var genesis: NoteVerifierKey { get throws { try NoteVerifierKey(name: ExportCosignatureTests.origin, publicKey: key.publicKey) } }
    }

    static func roundTrip(_ snapshot: AuditSnapshot) throws -> AuditSnapshot {
        let path = NSTemporaryDirectory() + "export-cosignature-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try AuditExport.write(snapshot, to: try FileDescriptor.createExclusive(path))
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(String(decoding: bytes, as: UTF8.self).contains("\ncosignature "), "the export holds a cosignature line")
        return try AuditExport.parse(bytes)
    }

    @Test("a cosignature travels in the export and verifies offline: the witness's vkey, the size and the time are reported")
    func carriedAndVerified() throws {
        let log = try Log()
        let witness = try Ed25519PrivateKey()
        let cosigned = try log.cosigned(by: witness, name: "desk.example/witness", at: 1_764_000_000)
        let parsed = try Self.roundTrip(log.snapshot([ExportedCosignature(witnessPublicKey: witness.publicKey, cosignedNote: cosigned)]))
        let report = try AuditVerifier(snapshot: parsed, genesis: try log.genesis).verify()
        let expected = try CosignatureVerifierKey(name: "desk.example/witness", publicKey: witness.publicKey)
        #expect(report.witnesses == [.init(witness: expected, treeSize: 0, timestamp: 1_764_000_000)])
    }

    @Test("a cosignature under another key, or on a checkpoint the export does not hold, fails verification as cosignature")
    func refusedCosignatures() throws {
        let log = try Log()
        let witness = try Ed25519PrivateKey()
        let cosigned = try log.cosigned(by: witness, name: "desk.example/witness", at: 1_764_000_000)
        let impostor = ExportedCosignature(witnessPublicKey: try Ed25519PrivateKey().publicKey, cosignedNote: cosigned)
        let other = try Log(size: 0)
        let elsewhere = ExportedCosignature(witnessPublicKey: witness.publicKey,
                                            cosignedNote: try Log(size: 5).cosigned(by: witness, name: "desk.example/witness", at: 1))
        for (cosignature, reason) in [(impostor, "no signature line is by its witness key"), (elsewhere, "a checkpoint the export does not hold")] {
            let parsed = try Self.roundTrip(log.snapshot([cosignature]))
            let failure = #expect(throws: AuditVerificationFailure.self) { try AuditVerifier(snapshot: parsed, genesis: try log.genesis).verify() }
            #expect(failure?.reason.hasPrefix("cosignature:") == true && failure?.reason.contains(reason) == true, "\(String(describing: failure))")
        }
        _ = other
    }
}
