import Foundation

/// A stored bundle's file being put back from a copy kept elsewhere (a paired device's replica,
/// SECURITY.md §9.13). The bytes go to a temporary file in assets/; the file takes the bundle's name
/// only once it verified as the bundle its row describes.
public final class RestoringBundle {
    public let stored: StoredBundle
    /// Where the copy's bytes go, in order from the first.
    public var output: FileDescriptor { temporary.descriptor }
    let temporary: AssetFolder.Temporary

    init(stored: StoredBundle, temporary: AssetFolder.Temporary) {
        self.stored = stored
        self.temporary = temporary
    }
}

/// Restoring lost or damaged bundle files. The `bundles` row stays the truth (§7): a restore never
/// adds a bundle, it only brings back the file of one the vault already lists.
extension UnlockedVault {
    /// The stored bundles whose file is missing or fails verification, each with the reason.
    public func storedBundlesNeedingRestore(in compartment: VaultCompartment? = nil)
        throws -> [(bundle: StoredBundle, reason: CryptoVaultError)] {
        try storedBundles(in: compartment).compactMap { bundle in
            do {
                try verifyFile(storedFile(of: bundle), belongsTo: bundle)
                return nil
            } catch let error as CryptoVaultError where error.code != .database {
                return (bundle, error)
            }
        }
    }

    /// The file of a stored bundle, opened as it is, unverified (to copy it elsewhere as ciphertext).
    public func storedFile(of bundle: StoredBundle) throws -> FileDescriptor {
        try FileDescriptor.openForReading(AssetFolder(path: vault.assetsPath).path(of: bundle.bundleID))
    }

    /// Starts putting back the file of stored bundle `bundleID`.
    public func beginRestore(of bundleID: BundleID) throws -> RestoringBundle {
        let stored = try storedBundle(bundleID)
        return RestoringBundle(stored: stored, temporary: try AssetFolder(path: vault.assetsPath).temporaryFile())
    }

    /// Verifies the restored copy end to end and, only if it passes, moves it into place and records
    /// `bundle.restore` (with `details`) in one transaction, as `put` publishes a new bundle. On any
    /// failure the copy is discarded and the old file, if any, is left as it was.
    public func finishRestore(_ restoring: RestoringBundle, details: [VaultEvent.Detail] = []) throws {
        let assets = AssetFolder(path: vault.assetsPath)
        do {
            try restoring.output.sync()
            try verifyFile(try FileDescriptor.openForReading(restoring.temporary.path), belongsTo: restoring.stored)
            let stored = restoring.stored
            try vault.withDatabase { database in
                try database.writeTransaction {
                    // The row may have gone (rm) while the copy was fetched: a file without a row is an orphan.
                    guard try database.queryOne("SELECT 1 AS present FROM bundles WHERE bundle_id = ?", [.blob(stored.bundleID.bytes)]) != nil else {
                        throw CryptoVaultError(.bundleNotFound, "bundle \(stored.idString) was removed while it was being restored")
                    }
                    try record(.bundleRestore, compartmentID: stored.compartment.id, bundleID: stored.bundleID,
                               bytes: stored.plaintextLength, in: database, details: details)
                    try assets.publish(restoring.temporary, as: assets.path(of: stored.bundleID))
                }
            }
        } catch {
            assets.discard(restoring.temporary)
            throw error
        }
    }

    /// Discards a restore that will not finish (the copy could not be fetched).
    public func abandonRestore(_ restoring: RestoringBundle) {
        AssetFolder(path: vault.assetsPath).discard(restoring.temporary)
    }

    /// Checks a bundle file end to end against its row: its size is the sealed length recorded at
    /// `put`, its header names the row's bundle and compartment and verifies under the vault's keys
    /// (§6.6 steps 1-10), and every payload chunk authenticates (step 11). Maintenance access: the
    /// plaintext stays in the opener's locked buffers, is wiped, and never leaves CryptoVault, so a
    /// privileged compartment needs no session for this.
    func verifyFile(_ input: FileDescriptor, belongsTo stored: StoredBundle) throws {
        guard let size = input.regularFileSize(), size == stored.sealedLength else {
            throw CryptoVaultError(.corruptBundle, "the file of bundle \(stored.idString) is not \(stored.sealedLength) bytes long")
        }
        try Self.check(try EncryptedBundle.readHeader(input), belongsTo: stored)
        let opened = try EncryptedBundle.open(input, vault: self, access: .maintenance, recordingReadsAs: nil)
        try Self.check(opened.header, belongsTo: stored)
        try opened.decrypt { _ in }
    }
}
