import CryptoVault
import Writing

/// A sealed, signed change of one project's writing model by one device (SECURITY.md §19.2): who
/// made it (`device`, its `counter`-th record), when in causal order (`lamport`), after what
/// (`parents`: the hashes of the records that were the device's heads), and what changed.
///
/// A record is named by its hash, the SHA-256 of its whole encoding (signature included), so a
/// parent link names exactly one history and two devices compare what they hold by hashes alone.
public struct ChangeRecord: Sendable, Hashable {
    public let project: ProjectID
    public let device: DeviceID
    /// 1 for a device's first record of the project, one more for each next: with the parents'
    /// version vector it shows a device's records form one chain, never a fork.
    public let counter: UInt64
    /// Greater than every parent's: the order conflicts are settled in.
    public let lamport: UInt64
    /// Strictly ascending hashes.
    public let parents: [[UInt8]]
    public let operations: [ChangeOperation]
    public let signature: [UInt8]

    /// The canonical encoding, and the hash that names the record.
    public let encoded: [UInt8]
    public let hash: [UInt8]

    init(project: ProjectID, device: DeviceID, counter: UInt64, lamport: UInt64, parents: [[UInt8]],
         operations: [ChangeOperation], signature: [UInt8], encoded: [UInt8]) {
        self.project = project
        self.device = device
        self.counter = counter
        self.lamport = lamport
        self.parents = parents
        self.operations = operations
        self.signature = signature
        self.encoded = encoded
        self.hash = SHA256.hash(encoded)
    }

    /// The body version (`ChangeRecordCodec.version`): 2 for records made under the block-conflict
    /// rule v2, 1 for records stored before it, whose 0x03s are ignored.
    public var version: UInt8 { encoded[ChangeRecordCodec.magic.count] }

    public static func == (lhs: ChangeRecord, rhs: ChangeRecord) -> Bool { lhs.hash == rhs.hash }
    public func hash(into hasher: inout Hasher) { hasher.combine(hash) }

    /// Signs and encodes a new record with `author`'s key. One the codec would refuse (no
    /// operation or over `ChangeRecordCodec.maximumOperations`, over 64 parents, over
    /// `ChangeRecordCodec.maximumSize` bytes, or anything else its parser refuses: an order key
    /// past 255 bytes, a block value past its bound) is never made (`invalidChange`): stored, it
    /// could be neither sent nor read back, and every later record of the device would have it in
    /// its past (SECURITY.md §19.2; review 17 s10, N-s10-2 and N-s10-5).
    public static func make(project: ProjectID, author: SyncAuthor, counter: UInt64, lamport: UInt64, parents: [[UInt8]],
                            operations: [ChangeOperation]) throws -> ChangeRecord {
        let parents = Array(Set(parents)).sorted { $0.lexicographicallyPrecedes($1) }
        guard (1...ChangeRecordCodec.maximumOperations).contains(operations.count), parents.count <= ChangeRecordCodec.maximumParents else {
            throw SyncError(.invalidChange, "a record of \(operations.count) operations and \(parents.count) parents: the codec takes 1 to \(ChangeRecordCodec.maximumOperations) and at most \(ChangeRecordCodec.maximumParents)")
        }
        let body = try ChangeRecordCodec.body(project: project, device: author.device, counter: counter, lamport: lamport,
                                          parents: parents, operations: operations)
        guard body.count + Ed25519.signatureSize <= ChangeRecordCodec.maximumSize else {
            throw SyncError(.invalidChange, "a record of \(body.count + Ed25519.signatureSize) bytes: the codec takes at most \(ChangeRecordCodec.maximumSize)")
        }
        // The reader's own rules, bounds included, on exactly the bytes about to be signed (the
        // signature is parsed, not checked, so zeros stand in for it).
        do { _ = try ChangeRecordCodec.parse(body + [UInt8](repeating: 0, count: Ed25519.signatureSize)) } catch {
            throw SyncError(.invalidChange, "this device would sign a record every reader refuses: \(error.message)")
        }
        let signature = try author.key.signature(for: ChangeRecordCodec.signingInput(body))
        return ChangeRecord(project: project, device: author.device, counter: counter, lamport: lamport, parents: parents,
                            operations: operations, signature: signature, encoded: body + signature)
    }

    /// Whether the signature verifies under `publicKey` (the device's Ed25519 key).
    public func isSigned(by publicKey: [UInt8]) -> Bool {
        Ed25519.isValidSignature(signature, for: ChangeRecordCodec.signingInput(Array(encoded.dropLast(Ed25519.signatureSize))),
                                 publicKey: publicKey)
    }
}

/// A device's signing identity for change records: its id and Ed25519 key.
public struct SyncAuthor: Sendable {
    public let device: DeviceID
    public let key: Ed25519PrivateKey

    public init(device: DeviceID, key: Ed25519PrivateKey) {
        self.device = device
        self.key = key
    }

    /// A fresh identity whose id is derived as a DeviceProfile's is (for tests and in-memory replicas).
    public static func random() throws -> SyncAuthor {
        let key = try Ed25519PrivateKey()
        return SyncAuthor(device: DeviceProfile.deriveIdentifier(signingPublicKey: key.publicKey, noisePublicKey: key.publicKey), key: key)
    }
}
