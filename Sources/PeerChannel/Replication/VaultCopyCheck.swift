import AuditChain
import CryptoVault
import Foundation

/// What anyone can check of a whole-vault copy without a key (SECURITY.md §13.3, §13.6): the
/// container, its public record and the audit log in it in full, from the genesis key it holds. The
/// keeper runs it on every copy before keeping it, and the sender on its own copy before offering it;
/// the facts it returns are the offer's.
public enum VaultCopyCheck {
    /// The offer that describes the copy at `path`, once it checked; with `leafAt`, also the leaf
    /// hash of that entry of its log (nil if the log is shorter), to tell whether it extends another.
    public static func facts(of path: String, leafAt index: UInt64? = nil) throws -> (offer: VaultCopyOffer, leaf: [UInt8]?) {
        let scratch = try BackupCheck.scratchDirectory(near: path)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        do {
            return try check(path, in: scratch, leafAt: index)
        } catch let error as CryptoVaultError {
            throw PeerChannelError(.vaultCopyRefused, "the vault copy is refused: \(error.message)")
        } catch let failure as AuditVerificationFailure {
            throw PeerChannelError(.vaultCopyRefused, "the vault copy is refused: its audit log fails verification: \(failure.reason)")
        }
    }

    private static func check(_ path: String, in scratch: String, leafAt index: UInt64?) throws -> (offer: VaultCopyOffer, leaf: [UInt8]?) {
        let summary = try BackupReader.extract(path, into: scratch, durable: false)
        // A version 1 file carries the database in the clear: it is never handed to a peer.
        guard summary.version >= 2 else {
            throw PeerChannelError(.vaultCopyRefused, "the vault copy is refused: a version \(summary.version) backup carries the database in the clear")
        }
        let record = try BackupPublicRecord.open((scratch as NSString).appendingPathComponent(BackupFormat.publicRecordName),
                                                 vaultID: summary.vaultID)
        let snapshot = try AuditSnapshot.load(from: record, vaultID: summary.vaultID)
        guard let genesis = snapshot.keys.first(where: { $0.epoch == 0 })?.publicKey else {
            throw AuditVerificationFailure(entry: nil, reason: "the log has no genesis key")
        }
        let key = try NoteVerifierKey(name: Checkpointer.origin(vaultID: summary.vaultID), publicKey: genesis)
        let report = try AuditVerifier(snapshot: snapshot, genesis: key).verify()
        let last = report.entryCount - 1
        let wanted = index.flatMap { $0 < UInt64(report.entryCount) ? Int($0) : nil }
        let leaves = try snapshot.leafHashes(at: Set([last] + (wanted.map { [$0] } ?? [])))
        guard report.entryCount >= 1, let lastLeaf = leaves[last] else {
            throw AuditVerificationFailure(entry: nil, reason: "the log has no entry")
        }
        let offer = VaultCopyOffer(vaultID: summary.vaultID, entries: UInt64(report.entryCount), lastLeafHash: lastLeaf,
                                   length: summary.fileBytes, sha256: try sha256(of: path))
        return (offer, wanted.flatMap { leaves[$0] })
    }

    /// SHA-256 of a whole file, read in 1 MiB blocks.
    public static func sha256(of path: String) throws -> [UInt8] {
        let file = try FileDescriptor.openForReading(path)
        var hasher = SHA256.Hasher()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset: UInt64 = 0
        while true {
            let count = try buffer.withUnsafeMutableBytes { try file.read(into: $0, at: offset) }
            guard count > 0 else { return hasher.finalize() }
            buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            offset += UInt64(count)
        }
    }
}
