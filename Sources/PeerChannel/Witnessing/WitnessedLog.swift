import AuditChain
import CryptoVault

/// What a witness keeps about one paired device's audit log (SECURITY.md §9.11), in the
/// `witnessed_logs` table: the log's identity, pinned at the first cosignature, and the latest
/// checkpoint this witness cosigned with the key that signed it.
public struct WitnessedLog: Sendable, Equatable {
    /// The log's origin, "vaultctl/" and the vault id in hex.
    public let origin: String
    /// The log's epoch-0 key, as the log presented it at first contact (trusted on first use).
    public let genesisPublicKey: [UInt8]
    /// The epoch whose key signed `checkpoint`: key transitions in the next request start after it.
    public let epoch: Int
    public let epochPublicKey: [UInt8]
    public let treeSize: UInt64
    public let rootHash: [UInt8]
    /// The checkpoint note with the log's signature and this witness's cosignature line.
    public let cosignedNote: String
    /// The cosignature's timestamp (POSIX seconds).
    public let cosignedAt: UInt64
}

/// The `witnessed_logs` table: at most one row per peer device.
struct WitnessedLogStore {
    let database: Database

    func log(of peer: DeviceID) throws -> WitnessedLog? {
        guard let row = try database.queryOne("SELECT * FROM witnessed_logs WHERE peer_device_id = ?", [.blob(peer.bytes)]) else { return nil }
        return WitnessedLog(origin: try row.text("origin"), genesisPublicKey: try row.blob("genesis_public_key"),
                            epoch: Int(try row.integer("epoch")), epochPublicKey: try row.blob("epoch_public_key"),
                            treeSize: UInt64(try row.nonNegativeInteger("tree_size")), rootHash: try row.blob("root_hash"),
                            cosignedNote: try row.text("cosigned_note"), cosignedAt: UInt64(try row.nonNegativeInteger("cosigned_at")))
    }

    func store(_ log: WitnessedLog, for peer: DeviceID) throws {
        try database.query("""
            INSERT INTO witnessed_logs (peer_device_id, origin, genesis_public_key, epoch, epoch_public_key, tree_size, root_hash,
                                        cosigned_note, cosigned_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (peer_device_id) DO UPDATE SET epoch = excluded.epoch, epoch_public_key = excluded.epoch_public_key,
                tree_size = excluded.tree_size, root_hash = excluded.root_hash, cosigned_note = excluded.cosigned_note,
                cosigned_at = excluded.cosigned_at
            """, [.blob(peer.bytes), .text(log.origin), .blob(log.genesisPublicKey), .integer(Int64(log.epoch)), .blob(log.epochPublicKey),
                  .integer(Int64(log.treeSize)), .blob(log.rootHash), .text(log.cosignedNote), .integer(Int64(log.cosignedAt))])
    }
}
