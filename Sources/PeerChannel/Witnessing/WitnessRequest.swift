import AuditChain
import CryptoVault

/// The log's request to a paired witness (kind `witness.add-checkpoint`, SECURITY.md §9.11), after
/// c2sp.org/tlog-witness's add-checkpoint:
///
///     request    = version (0x01)
///                  || u64be old size                  the size this witness last cosigned, 0 at first
///                  || genesis public key (32)         the log's epoch-0 key
///                  || u8 p || p × 32 bytes            consistency proof, p ≤ 64
///                  || u16be t || t × (u16be n || n bytes of a key transition note), t ≤ 1024, 1 ≤ n ≤ 2048
///                  || u32be c || c bytes of the checkpoint note, 1 ≤ c ≤ 65536
///
/// and nothing after. Notes are kept as bytes here; the witness parses them as it checks them.
public struct WitnessRequest: Sendable, Equatable {
    public static let kind = "witness.add-checkpoint"
    static let version: UInt8 = 0x01
    public static let maximumProofLength = 64
    /// At most this many epochs per request: a log further ahead of its witness walks there through
    /// its intermediate checkpoints, one request per step.
    public static let maximumTransitions = 1024
    static let maximumTransitionSize = 2048
    static let maximumCheckpointSize = 65536

    public let oldSize: UInt64
    public let genesisPublicKey: [UInt8]
    public let consistencyProof: [[UInt8]]
    public let keyTransitions: [[UInt8]]
    public let checkpointNote: [UInt8]

    public init(oldSize: UInt64, genesisPublicKey: [UInt8], consistencyProof: [[UInt8]], keyTransitions: [[UInt8]],
                checkpointNote: [UInt8]) throws(PeerChannelError) {
        self.oldSize = oldSize
        self.genesisPublicKey = genesisPublicKey
        self.consistencyProof = consistencyProof
        self.keyTransitions = keyTransitions
        self.checkpointNote = checkpointNote
        try validate()
    }

    public init(_ material: WitnessMaterial, oldSize: Int) throws(PeerChannelError) {
        try self.init(oldSize: UInt64(oldSize), genesisPublicKey: material.genesisPublicKey, consistencyProof: material.consistencyProof,
                      keyTransitions: material.keyTransitions.map { Array($0.utf8) }, checkpointNote: Array(material.checkpointNote.utf8))
    }

    public init(parsing body: [UInt8]) throws(PeerChannelError) {
        var reader = WitnessWireReader(body)
        guard try reader.byte() == Self.version else { throw WitnessWireReader.malformed("an unknown witness request version") }
        oldSize = try reader.integer(8)
        genesisPublicKey = try reader.bytes(Ed25519.publicKeySize)
        consistencyProof = try reader.list(count: reader.integer(1), maximum: Self.maximumProofLength, "proof hashes") { reader throws(PeerChannelError) in
            try reader.bytes(MerkleHash.size)
        }
        keyTransitions = try reader.list(count: reader.integer(2), maximum: Self.maximumTransitions, "key transitions") { reader throws(PeerChannelError) in
            try reader.field(lengthBytes: 2, maximum: Self.maximumTransitionSize, "a key transition")
        }
        checkpointNote = try reader.field(lengthBytes: 4, maximum: Self.maximumCheckpointSize, "the checkpoint")
        try reader.requireEnd()
    }

    public func serialized() -> [UInt8] {
        var bytes: [UInt8] = [Self.version] + WitnessWireReader.bigEndian(oldSize, width: 8) + genesisPublicKey
        bytes += [UInt8(consistencyProof.count)] + consistencyProof.flatMap { $0 }
        bytes += WitnessWireReader.bigEndian(UInt64(keyTransitions.count), width: 2)
        for transition in keyTransitions { bytes += WitnessWireReader.bigEndian(UInt64(transition.count), width: 2) + transition }
        return bytes + WitnessWireReader.bigEndian(UInt64(checkpointNote.count), width: 4) + checkpointNote
    }

    /// The bounds the parser enforces, so that whatever is built here also parses there.
    private func validate() throws(PeerChannelError) {
        guard genesisPublicKey.count == Ed25519.publicKeySize else { throw WitnessWireReader.malformed("a genesis key is 32 bytes") }
        guard consistencyProof.count <= Self.maximumProofLength, consistencyProof.allSatisfy({ $0.count == MerkleHash.size }) else {
            throw WitnessWireReader.malformed("a consistency proof is at most \(Self.maximumProofLength) hashes of 32 bytes")
        }
        guard keyTransitions.count <= Self.maximumTransitions,
              keyTransitions.allSatisfy({ (1...Self.maximumTransitionSize).contains($0.count) }) else {
            throw WitnessWireReader.malformed("at most \(Self.maximumTransitions) key transitions of 1 to \(Self.maximumTransitionSize) bytes")
        }
        guard (1...Self.maximumCheckpointSize).contains(checkpointNote.count) else {
            throw WitnessWireReader.malformed("a checkpoint note is 1 to \(Self.maximumCheckpointSize) bytes")
        }
    }
}
