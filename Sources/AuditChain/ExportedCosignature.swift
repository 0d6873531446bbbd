import CryptoVault
import Foundation

/// A witness's cosignature carried in an export (SECURITY.md §8.8, §8.10): the witness's Ed25519
/// public key and the checkpoint note as the log signed it with the witness's line appended, so an
/// offline auditor can check witnesses without the vault.
public struct ExportedCosignature: Sendable, Equatable {
    public let witnessPublicKey: [UInt8]
    public let cosignedNote: String

    public init(witnessPublicKey: [UInt8], cosignedNote: String) {
        self.witnessPublicKey = witnessPublicKey
        self.cosignedNote = cosignedNote
    }

    /// What a verified cosignature says: which witness key, on the checkpoint of how many entries, when.
    public struct Verified: Sendable, Equatable {
        public let witness: CosignatureVerifierKey
        public let treeSize: Int
        public let timestamp: UInt64
    }

    /// Verifies the cosignature against the export's checkpoints: its note's text must be the text
    /// of one of them, and one of its signature lines must be a valid `cosignature/v1` by the
    /// witness key (the line whose key ID that key, under the line's name, derives).
    func verify(against checkpointBodies: Set<String>) throws -> Verified {
        let note: SignedNote
        do { note = try SignedNote(parsing: cosignedNote) } catch { throw Self.failure("its note does not parse: \(error.message)") }
        guard checkpointBodies.contains(note.body) else { throw Self.failure("it is on a checkpoint the export does not hold") }
        for line in note.signatures {
            guard let key = try? CosignatureVerifierKey(name: line.keyName, publicKey: witnessPublicKey), key.keyID == line.keyID else { continue }
            do {
                let timestamp = try key.verifyCosignature(on: note)
                let body = try Checkpoint(parsing: note.body)
                guard let size = Int(exactly: body.treeSize) else { throw Self.failure("its checkpoint claims an impossible tree size") }
                return Verified(witness: key, treeSize: size, timestamp: timestamp)
            } catch let error as AuditChainError {
                throw Self.failure("witness \(key.vkey): \(error.message)")
            }
        }
        throw Self.failure("no signature line is by its witness key")
    }

    static func failure(_ reason: String) -> AuditVerificationFailure {
        AuditVerificationFailure(entry: nil, reason: "cosignature: a witness cosignature does not verify: \(reason)")
    }
}
