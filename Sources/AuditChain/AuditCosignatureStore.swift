import CryptoVault

/// The `audit_cosignatures` table (SECURITY.md §9.11): one row per witness cosignature received on
/// one of this vault's checkpoints, oldest first. Read and written by this type only
/// (OwnedSQLGuardTests): PeerChannel's witnessing adds and reads rows through it, and the export
/// carries the two columns an auditor needs. It lives in AuditChain, below PeerChannel, so that
/// both can reach it.
package struct AuditCosignatureStore {
    /// A row as stored.
    package struct Stored: Sendable, Equatable {
        package let witnessDeviceID: DeviceID
        package let witnessPublicKey: [UInt8]
        package let epoch: Int
        package let treeSize: Int
        package let cosignedNote: String
        package let cosignedAt: UInt64

        package init(witnessDeviceID: DeviceID, witnessPublicKey: [UInt8], epoch: Int, treeSize: Int, cosignedNote: String,
                     cosignedAt: UInt64) {
            self.witnessDeviceID = witnessDeviceID
            self.witnessPublicKey = witnessPublicKey
            self.epoch = epoch
            self.treeSize = treeSize
            self.cosignedNote = cosignedNote
            self.cosignedAt = cosignedAt
        }
    }

    let database: Database

    package init(database: Database) { self.database = database }

    package func add(_ cosignature: Stored) throws {
        try database.query("""
            INSERT INTO audit_cosignatures (witness_device_id, witness_public_key, epoch, tree_size, cosigned_note, cosigned_at)
            VALUES (?, ?, ?, ?, ?, ?)
            """, [.blob(cosignature.witnessDeviceID.bytes), .blob(cosignature.witnessPublicKey), .integer(Int64(cosignature.epoch)),
                  .integer(Int64(cosignature.treeSize)), .text(cosignature.cosignedNote), .integer(Int64(cosignature.cosignedAt))])
    }

    /// The newest cosignature from `witness`, or nil if it never cosigned.
    package func latest(from witness: DeviceID) throws -> Stored? {
        try database.queryOne("SELECT * FROM audit_cosignatures WHERE witness_device_id = ? ORDER BY id DESC LIMIT 1",
                              [.blob(witness.bytes)]).map(Self.stored)
    }

    /// The newest cosignature of each witness, in the order the witnesses first cosigned.
    package func latestOfEachWitness() throws -> [Stored] {
        try database.query("""
            SELECT * FROM audit_cosignatures WHERE id IN (SELECT max(id) FROM audit_cosignatures GROUP BY witness_device_id)
            ORDER BY (SELECT min(id) FROM audit_cosignatures AS first WHERE first.witness_device_id = audit_cosignatures.witness_device_id)
            """).map(Self.stored)
    }

    /// Every cosignature as an export carries it, in the order received.
    func exported() throws -> [ExportedCosignature] {
        try database.query("SELECT witness_public_key, cosigned_note FROM audit_cosignatures ORDER BY id").map { row in
            ExportedCosignature(witnessPublicKey: try row.blob("witness_public_key"), cosignedNote: try row.text("cosigned_note"))
        }
    }

    private static func stored(_ row: Row) throws -> Stored {
        Stored(witnessDeviceID: try DeviceID(bytes: try row.blob("witness_device_id")), witnessPublicKey: try row.blob("witness_public_key"),
               epoch: try row.nonNegativeInteger("epoch"), treeSize: try row.nonNegativeInteger("tree_size"),
               cosignedNote: try row.text("cosigned_note"), cosignedAt: UInt64(max(0, try row.integer("cosigned_at"))))
    }
}
