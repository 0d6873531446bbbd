import CryptoVault
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The replicas this vault keeps for paired devices (SECURITY.md §9.13): rows of the `replicas` table
/// and files under `VAULT/replicas/<source device id>/`, outside assets/ so that the vault's own sweep
/// never mistakes them for orphans of its own bundles.
///
/// `<bundle id>.partial` holds the bytes received so far; the row's `received` never counts a byte
/// before it is fsynced (the keeper fsyncs every `ReplicaPolicy.syncInterval` bytes and at the end). `<bundle id>.replica` is a complete replica that verified; it takes that name
/// in the transaction that marks the row complete.
struct ReplicaStore {
    static let folderName = "replicas"

    let vault: UnlockedVault

    var folder: String { (vault.vault.directory as NSString).appendingPathComponent(Self.folderName) }

    func sourceFolder(_ sourceDeviceID: DeviceID) -> String { "\(folder)/\(sourceDeviceID.hex)" }

    func partialPath(_ record: ReplicaRecord) -> String {
        "\(sourceFolder(record.sourceDeviceID))/\(record.bundleID.hex).partial"
    }

    func completePath(_ record: ReplicaRecord) -> String {
        "\(sourceFolder(record.sourceDeviceID))/\(record.bundleID.hex).replica"
    }

    // MARK: Rows

    func record(source: DeviceID, bundleID: BundleID) throws -> ReplicaRecord? {
        try vault.vault.read { database in
            try database.queryOne("SELECT * FROM replicas WHERE source_device_id = ? AND bundle_id = ?",
                                  [.blob(source.bytes), .blob(bundleID.bytes)]).map(ReplicaRecord.init(row:))
        }
    }

    /// One inventory page: the replicas of `source`'s vault from the requested bundle id on.
    func inventory(source: DeviceID, request: ReplicaInventory.Request) throws -> [ReplicaInventory.Entry] {
        try vault.vault.read { database in
            try database.query("""
                SELECT * FROM replicas WHERE source_device_id = ? AND vault_id = ? AND bundle_id >= ?
                ORDER BY bundle_id LIMIT ?
                """, [.blob(source.bytes), .blob(request.vaultID.bytes), .blob(request.firstBundleID.bytes), .integer(Int64(ReplicaInventory.pageSize))])
                .map { try ReplicaRecord(row: $0).inventoryEntry }
        }
    }

    /// How many replicas are kept for `source` other than `bundleID`'s (all of them for nil), and
    /// their announced lengths.
    func kept(for source: DeviceID, apartFrom bundleID: BundleID? = nil) throws -> (count: Int, bytes: UInt64) {
        try vault.vault.read { database in
            let row = try database.queryOne("""
                SELECT count(*) AS replicas, coalesce(sum(length), 0) AS total FROM replicas WHERE source_device_id = ? AND bundle_id IS NOT ?
                """, [.blob(source.bytes), bundleID.map { .blob($0.bytes) } ?? .null])
            return (Int(try row?.integer("replicas") ?? 0), UInt64(clamping: try row?.integer("total") ?? 0))
        }
    }

    // MARK: Transfers

    /// Starts a replica afresh for `announcement`: the row says nothing received, the partial file is
    /// empty, and an older version of the bundle (a complete replica of other bytes) is gone.
    func start(_ announcement: ReplicaAnnouncement, source: DeviceID) throws -> ReplicaRecord {
        let record = ReplicaRecord(sourceDeviceID: source, bundleID: announcement.bundleID, vaultID: announcement.vaultID,
                                   length: announcement.length, sha256: announcement.sha256, received: 0)
        // Bookkeeping of a transfer under way, through the audited transaction with no entry of its
        // own: the replica is recorded once, as `replica.receive`, when it completes and verifies.
        try vault.transaction { tx in
            try tx.database.query("""
                INSERT OR REPLACE INTO replicas (source_device_id, bundle_id, vault_id, length, sha256, received, announced_at, completed_at)
                VALUES (?, ?, ?, ?, ?, 0, ?, NULL)
                """, [.blob(source.bytes), .blob(record.bundleID.bytes), .blob(record.vaultID.bytes), .integer(Int64(record.length)),
                      .blob(record.sha256), .integer(VaultClock.system.now())])
        }
        try makeFolders(for: source)
        try FileDescriptor.openForWriting(partialPath(record), creating: true).truncate(to: 0)
        unlink(completePath(record))
        return record
    }

    /// Where an interrupted transfer continues: the row's count, once the partial file is made to hold
    /// exactly that many bytes. Bytes past the count were never made durable and are cut; a file
    /// shorter than the count (lost, or cut outside this program) restarts the transfer from 0.
    func resumePoint(of record: ReplicaRecord) throws -> UInt64 {
        let size = (try? FileDescriptor.openForReading(partialPath(record)).regularFileSize()) ?? nil
        guard let size, size >= record.received else {
            try setReceived(0, of: record)
            try makeFolders(for: record.sourceDeviceID)
            try FileDescriptor.openForWriting(partialPath(record), creating: true).truncate(to: 0)
            return 0
        }
        if size > record.received { try FileDescriptor.openForWriting(partialPath(record)).truncate(to: record.received) }
        return record.received
    }

    /// Writes bytes into the partial file at `offset`, without waiting for the disk.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64, of record: ReplicaRecord) throws {
        try FileDescriptor.openForWriting(partialPath(record)).write(bytes, at: offset)
    }

    /// Fsyncs the partial file, then counts its first `received` bytes in the row. The last bytes are
    /// counted only by `complete`, once the whole bundle verified.
    func makeDurable(_ record: ReplicaRecord, upTo received: UInt64) throws {
        try FileDescriptor.openForWriting(partialPath(record)).sync()
        if received < record.length { try setReceived(received, of: record) }
    }

    /// Marks a fully received, verified replica complete and gives its file the complete name, in one
    /// transaction with `event` (its audit entry).
    func complete(_ record: ReplicaRecord, recording event: VaultEvent) throws {
        try vault.transaction { tx in
            try tx.database.query("UPDATE replicas SET received = length, completed_at = ? WHERE source_device_id = ? AND bundle_id = ?",
                                  [.integer(VaultClock.system.now()), .blob(record.sourceDeviceID.bytes), .blob(record.bundleID.bytes)])
            try tx.record(event)
            try DurableFile.renameReplacing(partialPath(record), to: completePath(record))
        }
    }

    /// Forgets a replica that failed verification: its row and its partial file.
    func discard(_ record: ReplicaRecord) throws {
        try vault.transaction { tx in
            try tx.database.query("DELETE FROM replicas WHERE source_device_id = ? AND bundle_id = ?",
                               [.blob(record.sourceDeviceID.bytes), .blob(record.bundleID.bytes)])
        }
        unlink(partialPath(record))
    }

    private func setReceived(_ received: UInt64, of record: ReplicaRecord) throws {
        try vault.transaction { tx in
            try tx.database.query("UPDATE replicas SET received = ? WHERE source_device_id = ? AND bundle_id = ?",
                               [.integer(Int64(received)), .blob(record.sourceDeviceID.bytes), .blob(record.bundleID.bytes)])
        }
    }

    private func makeFolders(for source: DeviceID) throws {
        for path in [folder, sourceFolder(source)] {
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
            } catch {
                throw CryptoVaultError(.io, "cannot create \(path): \(error.localizedDescription)")
            }
        }
    }
}
