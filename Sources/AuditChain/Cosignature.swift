import CryptoVault

/// Ed25519 witness cosignatures (c2sp.org/tlog-cosignature, "cosignature/v1"): a witness's statement
/// that, as of a time, the checkpoint is the largest consistent tree head it has seen for the log.
///
/// A cosignature is a note signature line on the checkpoint, with a key ID of signature type 0x04 and
/// a signature blob that is a `timestamped_signature`:
///
///     key ID    = SHA-256(name || "\n" || 0x04 || 32-byte Ed25519 public key)[:4]
///     signature = u64 timestamp (big-endian, POSIX seconds, at most 2^63 - 1) || Ed25519 signature[64]
///     message   = "cosignature/v1\n" || "time " decimal(timestamp) "\n" || checkpoint body
///
/// The type byte keeps cosignatures apart from plain note signatures by the same key: each has its
/// own key ID, so a verifier of one ignores the other. The message does not commit to the witness's
/// name, so one witness key must never serve two witness names (the spec's rule, the operator's duty).
public enum CosignatureV1 {
    /// The signature type byte of Ed25519 cosignatures.
    public static let signatureType: UInt8 = 0x04
    /// The largest timestamp the spec allows.
    public static let maximumTimestamp = UInt64(Int64.max)
    /// Bytes of a cosignature blob: the timestamp and the Ed25519 signature.
    public static let signatureSize = 8 + Ed25519.signatureSize

    /// The bytes a witness signs: two header lines, then the whole checkpoint body (extension lines
    /// included, signature lines not). The decimal has no leading zeros, as Swift writes it.
    public static func message(timestamp: UInt64, checkpointBody: String) -> [UInt8] {
        Array("cosignature/v1\ntime \(timestamp)\n".utf8) + Array(checkpointBody.utf8)
    }

    /// The timestamp of a cosignature line, read without verifying the signature (to show it, or to
    /// tell which of two cosignatures is newer); throws `.malformedCosignature` unless the blob is a
    /// timestamp within range and a 64-byte signature.
    public static func timestamp(of signature: NoteSignature) throws(AuditChainError) -> UInt64 {
        guard signature.signature.count == signatureSize else {
            throw AuditChainError(.malformedCosignature, "a cosignature has \(signatureSize) bytes, not \(signature.signature.count)")
        }
        let timestamp = signature.signature.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard timestamp <= maximumTimestamp else {
            throw AuditChainError(.malformedCosignature, "the timestamp \(timestamp) is above 2^63 - 1")
        }
        return timestamp
    }
}

/// A witness's cosignature key, as given to verifiers in the vkey form with signature type 0x04:
/// "<name>+<key ID as 8 lowercase hex digits>+<base64(0x04 || 32-byte public key)>".
public struct CosignatureVerifierKey: Sendable, Equatable {
    public let name: String
    /// SHA-256(name || 0x0A || 0x04 || public key)[:4], big-endian.
    public let keyID: UInt32
    /// The 32-byte Ed25519 public key.
    public let publicKey: [UInt8]

    public init(name: String, publicKey: [UInt8]) throws(AuditChainError) {
        self.init(try VerifierKeyText(name: name, type: CosignatureV1.signatureType, publicKey: publicKey,
                                      publicKeySize: Ed25519.publicKeySize))
    }

    /// Parses a vkey of type 0x04, strictly (one encoding per key, the key ID it derives).
    public init(vkey: String) throws(AuditChainError) {
        self.init(try VerifierKeyText(parsing: vkey, type: CosignatureV1.signatureType, publicKeySize: Ed25519.publicKeySize))
    }

    public var vkey: String {
        VerifierKeyText.format(name: name, keyID: keyID, type: CosignatureV1.signatureType, publicKey: publicKey)
    }

    public static func == (lhs: CosignatureVerifierKey, rhs: CosignatureVerifierKey) -> Bool {
        lhs.keyID == rhs.keyID && lhs.name.utf8.elementsEqual(rhs.name.utf8) && lhs.publicKey == rhs.publicKey
    }

    /// The time at which this witness cosigned `note`, whose body must be a checkpoint.
    ///
    /// Every line carrying this key's name and key ID must be a valid cosignature of the body; the
    /// latest timestamp among them is returned. Throws `.noCosignature` when there is no such line, and
    /// otherwise the first failure. Whether the time is plausible (not in the future, recent enough)
    /// is the caller's policy: the spec lets verifiers reject future timestamps.
    public func verifyCosignature(on note: SignedNote) throws(AuditChainError) -> UInt64 {
        // A cosignature is a statement about a checkpoint; a note that is not one carries none.
        _ = try Checkpoint(parsing: note.body)
        var latest: UInt64?
        for line in note.signatures where line.keyID == keyID && line.keyName.utf8.elementsEqual(name.utf8) {
            let timestamp = try CosignatureV1.timestamp(of: line)
            let message = CosignatureV1.message(timestamp: timestamp, checkpointBody: note.body)
            guard Ed25519.isValidSignature(Array(line.signature.dropFirst(8)), for: message, publicKey: publicKey) else {
                throw AuditChainError(.signatureInvalid, "the cosignature by \(name)+\(NoteKeyID.hex(keyID)) does not verify")
            }
            latest = max(latest ?? 0, timestamp)
        }
        guard let latest else {
            throw AuditChainError(.noCosignature, "the note has no cosignature by \(name)+\(NoteKeyID.hex(keyID))")
        }
        return latest
    }

    private init(_ key: VerifierKeyText) {
        name = key.name
        keyID = key.keyID
        publicKey = key.publicKey
    }
}

/// A witness's signing side: cosigns checkpoints with an Ed25519 key under the witness's name.
public struct Cosigner: Sendable {
    /// The key that verifies this witness's cosignatures, to give to log clients.
    public let verifierKey: CosignatureVerifierKey
    private let privateKey: Ed25519PrivateKey

    public init(name: String, privateKey: Ed25519PrivateKey) throws(AuditChainError) {
        verifierKey = try CosignatureVerifierKey(name: name, publicKey: privateKey.publicKey)
        self.privateKey = privateKey
    }

    /// The cosignature line stating that `checkpoint` was the latest consistent tree head seen at
    /// `timestamp` (POSIX seconds). Checking consistency before cosigning is the caller's job.
    public func cosign(_ checkpoint: Checkpoint, timestamp: UInt64) throws(AuditChainError) -> NoteSignature {
        guard timestamp <= CosignatureV1.maximumTimestamp else {
            throw AuditChainError(.malformedCosignature, "the timestamp \(timestamp) is above 2^63 - 1")
        }
        let message = CosignatureV1.message(timestamp: timestamp, checkpointBody: checkpoint.body)
        let signature: [UInt8]
        do {
            signature = try privateKey.signature(for: message)
        } catch {
            throw AuditChainError(.signingFailed, "Ed25519 signing failed: \(error)")
        }
        let time = (0..<8).map { UInt8(truncatingIfNeeded: timestamp >> (56 - 8 * $0)) }
        return try NoteSignature(keyName: verifierKey.name, keyID: verifierKey.keyID, signature: time + signature)
    }
}
