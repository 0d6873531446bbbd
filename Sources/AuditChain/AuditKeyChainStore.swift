import CryptoVault
import Foundation

/// The forward-secure chain of audit signing keys, in the `audit_signing_keys` table. Epoch 0 is the
/// genesis key, whose public half (as a signed-note vkey) is what an auditor trusts. Each later key is
/// introduced by a note signed by the key before it; only the newest key's private half is stored.
struct AuditKeyChainStore {
    let database: Database
    /// Dates the keys it makes; readers never make one, so the system clock is their default.
    var clock: VaultClock = .system

    struct SigningKey {
        let epoch: Int
        let privateKey: Ed25519PrivateKey

        /// `body` as a C2SP signed note by this epoch's key under the log's name: what the log stores
        /// and exports for checkpoints and key transitions.
        func signedNote(_ body: String, origin: String) throws -> String {
            try SignedNote.sign(body: body, signers: [try NoteSigner(name: origin, privateKey: privateKey)]).serialized()
        }
    }

    /// The genesis key, made on first use (the vault's first audit entry).
    func ensureGenesis() throws {
        guard try database.queryOne("SELECT epoch FROM audit_signing_keys WHERE epoch = 0") == nil else { return }
        let key = try Ed25519PrivateKey()
        try database.query("INSERT INTO audit_signing_keys (epoch, public_key, introduction, private_key, created_at) VALUES (0, ?, NULL, ?, ?)",
                           [.blob(key.publicKey), .blob(key.seed.exposedCopy()), .integer(clock.now())])
    }

    func currentSigningKey(origin: String) throws -> SigningKey {
        try ensureGenesis()
        guard let row = try database.queryOne("SELECT epoch, private_key FROM audit_signing_keys ORDER BY epoch DESC LIMIT 1"),
              case .blob(let seed) = row["private_key"], seed.count == 32 else {
            throw AuditChainError(.verificationFailed, "the current audit signing key is missing: the vault cannot sign checkpoints")
        }
        // The next epoch is this one plus one: a stored epoch of 2^63 - 1 (or a negative one) is damage.
        let epoch = try row.nonNegativeInteger("epoch")
        guard epoch < Int.max else {
            throw AuditChainError(.verificationFailed, "the current audit signing key's epoch (\(epoch)) is damaged: the vault cannot sign checkpoints; run 'vaultctl audit verify'")
        }
        return SigningKey(epoch: epoch, privateKey: try Ed25519PrivateKey(seed: try SecureBytes(copying: seed)))
    }

    /// Makes the next epoch's key, has the current key introduce it, and erases the current private key.
    /// Returns the new current key.
    @discardableResult
    func evolve(from current: SigningKey, origin: String, after checkpoint: Checkpoint) throws -> SigningKey {
        let next = try Ed25519PrivateKey()
        let statement = KeyTransition(origin: origin, epoch: current.epoch + 1, publicKey: next.publicKey, after: checkpoint)
        let introduction = try current.signedNote(statement.text, origin: origin)
        try database.query("INSERT INTO audit_signing_keys (epoch, public_key, introduction, private_key, created_at) VALUES (?, ?, ?, ?, ?)",
                           [.integer(Int64(current.epoch + 1)), .blob(next.publicKey), .text(introduction),
                            .blob(next.seed.exposedCopy()), .integer(clock.now())])
        try database.query("UPDATE audit_signing_keys SET private_key = NULL WHERE epoch = ?", [.integer(Int64(current.epoch))])
        return SigningKey(epoch: current.epoch + 1, privateKey: next)
    }

    func genesisPublicKey() throws -> [UInt8] {
        try ensureGenesis()
        guard let key = try storedGenesisPublicKey() else {
            throw AuditChainError(.verificationFailed, "the vault has no genesis audit key")
        }
        return key
    }

    // MARK: Reading only (verification, export, witnessing): nothing is made.

    /// The genesis public key, or nil when the log has none yet.
    func storedGenesisPublicKey() throws -> [UInt8]? {
        try database.queryOne("SELECT public_key FROM audit_signing_keys WHERE epoch = 0")?.blob("public_key")
    }

    /// Every epoch's public key and introduction, oldest first.
    func storedKeys() throws -> [AuditSnapshot.Key] {
        try database.query("SELECT epoch, public_key, introduction FROM audit_signing_keys ORDER BY epoch").map { row in
            AuditSnapshot.Key(epoch: Int(try row.integer("epoch")), publicKey: try row.blob("public_key"), introduction: try? row.text("introduction"))
        }
    }

    /// The introductions of the epochs after `first` up to and including `last`, in order.
    func introductions(after first: Int, through last: Int) throws -> [String] {
        try database.query("SELECT introduction FROM audit_signing_keys WHERE epoch > ? AND epoch <= ? ORDER BY epoch",
                           [.integer(Int64(first)), .integer(Int64(last))]).map { try $0.text("introduction") }
    }
}

/// What the outgoing key signs: the incoming key, its epoch, and the checkpoint it follows.
///
///     vaultctl audit key transition v1
///     <origin>
///     epoch <e+1>
///     key <base64 public key of epoch e+1>
///     after <tree size> <base64 root hash>
public struct KeyTransition: Equatable, Sendable {
    static let firstLine = "vaultctl audit key transition v1"

    public let origin: String
    public let epoch: Int
    public let publicKey: [UInt8]
    /// The checkpoint the outgoing key signed last; only its size and root hash are in the text.
    public let after: Checkpoint

    public var text: String {
        "\(Self.firstLine)\n\(origin)\nepoch \(epoch)\nkey \(NoteBase64.encode(publicKey))\n"
            + "after \(after.treeSize) \(NoteBase64.encode(after.rootHash))\n"
    }
}
