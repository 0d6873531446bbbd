import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A bundle kept in the vault's assets/ folder, as listed by `ls`.
public struct StoredBundle: Sendable {
    public let bundleID: BundleID
    public let compartment: VaultCompartment
    public let keyVersion: UInt32
    public let plaintextLength: UInt64
    public let sealedLength: UInt64
    public let createdAt: Int64
    public var idString: String { bundleID.hex }
}

/// Bundles kept in assets/. The database row is the truth: a file is visible only once its row has
/// committed, and the row commits only after the file is durably in place. A crash can leave a file
/// without a row (an orphan, swept later) but never a row without its file.
extension UnlockedVault {
    /// Seals `input` into assets/ and records it, in one transaction. `beforeCommit` runs in that
    /// transaction once the row and its `bundle.put` entry are written, for what must commit with
    /// the bundle or not at all (a privileged document's leak-guard fingerprints, SECURITY.md §11.7):
    /// if it throws, nothing is stored.
    public func put(from input: FileDescriptor, compartment: VaultCompartment, metadata: BundleMetadata,
                    options: EncryptedBundle.Options = .init(), progress: (UInt64) -> Void = { _ in },
                    beforeCommit: (VaultTransaction) throws -> Void = { _ in }) throws -> StoredBundle {
        try Self.requireOwn(compartment)
        let assets = AssetFolder(path: vault.assetsPath)
        let temporary = try assets.temporaryFile()
        do {
            let header = try EncryptedBundle.seal(from: input, to: temporary.descriptor, compartment: compartment, vault: self,
                                                  metadata: metadata, options: options, progress: progress)
            try temporary.descriptor.sync()
            let sealedLength = temporary.descriptor.regularFileSize() ?? 0
            let destination = assets.path(of: header.bundleID)
            var published = false
            do {
                try transaction { tx in
                    try Self.requireStillLive(compartment, keyVersion: header.keyVersion, in: tx.database)
                    try tx.database.query("""
                    INSERT INTO bundles (bundle_id, compartment_id, key_version, plaintext_length, sealed_length, created_at)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """, [.blob(header.bundleID.bytes), .integer(compartment.rowID), .integer(Int64(header.keyVersion)),
                          .integer(Int64(header.plaintextLength)), .integer(Int64(sealedLength)), .integer(VaultClock.system.now())])
                    try tx.record(.bundlePut, bundle: header, bytes: header.plaintextLength, details: [.init("file", metadata.name)])
                    try beforeCommit(tx)
                    try assets.publish(temporary, as: destination)
                    published = true
                }
            } catch {
                // Published but not committed: the file has no row and must not stay (it cannot be
                // removed with `rm`, and it may hold a destroyed compartment's material).
                if published { unlink(destination) }
                throw error
            }
            return try storedBundle(header.bundleID)
        } catch {
            assets.discard(temporary)
            throw error
        }
    }

    /// The bundle file of a stored bundle, opened and verified.
    /// Verifies, besides the bundle itself, that the file is the one the row names: same bundle id,
    /// same compartment. Without this, someone with write access to assets/ (and no key) could put
    /// one bundle's file under another's name and have `get` return the wrong record.
    /// A bundle of a privileged compartment is refused (`.privilegedSessionRequired`), as by
    /// `EncryptedBundle.open`. Each read of its plaintext is recorded as `bundle.get` (see `OpenedBundle`).
    public func openStored(_ bundleID: BundleID) throws -> OpenedBundle {
        try openStored(bundleID, access: .vault, recordingReadsAs: .bundleGet)
    }

    /// `openStored` inside a privileged processing session, with its keyring. The session records
    /// its reads itself (`session.read`).
    public func openStored(_ bundleID: BundleID, keyring: CompartmentKeyring) throws -> OpenedBundle {
        try openStored(bundleID, access: .keyring(keyring), recordingReadsAs: nil)
    }

    private func openStored(_ bundleID: BundleID, access: CompartmentKeyAccess, recordingReadsAs readAction: AuditAction?) throws -> OpenedBundle {
        let stored = try storedBundle(bundleID)
        let assets = AssetFolder(path: vault.assetsPath)
        try finishInterruptedRewrap(of: bundleID)
        let input = try FileDescriptor.openForReading(assets.path(of: bundleID))
        // First the header as it claims to be (unverified), so a swapped file is named as such
        // whatever its compartment; then again once it verified.
        try Self.check(try EncryptedBundle.readHeader(input), belongsTo: stored)
        let opened = try EncryptedBundle.open(input, vault: self, access: access, recordingReadsAs: readAction)
        try Self.check(opened.header, belongsTo: stored)
        return opened
    }

    /// Sealing takes a while, and another process may destroy the compartment or retire the key
    /// version meanwhile: re-checked inside the write transaction that inserts the row.
    private static func requireStillLive(_ compartment: VaultCompartment, keyVersion: UInt32, in database: Database) throws {
        guard try CompartmentStore.isLive(rowID: compartment.rowID, in: database) else {
            throw CryptoVaultError(.compartmentNotFound,
                                   "compartment '\(compartment.name)' was destroyed while the file was being sealed; nothing was stored")
        }
        guard try CompartmentStore.isActive(rowID: compartment.rowID, version: keyVersion, in: database) else {
            throw CryptoVaultError(.unknownKeyVersion,
                                   "key version \(keyVersion) of '\(compartment.name)' was retired while the file was being sealed; nothing was stored")
        }
    }

    /// The vault's assets/ hold its own compartments' bundles: a shared compartment's bundles are
    /// files (sealed with `seal`, opened with `open`), their keys owned and rotated by another vault.
    static func requireOwn(_ compartment: VaultCompartment) throws {
        guard compartment.sharing == nil else {
            throw CryptoVaultError(.sharedCompartmentReadOnly,
                                   "compartment '\(compartment.name)' belongs to another vault: seal its bundles to files instead of storing them here")
        }
    }

    static func check(_ header: BundleHeader, belongsTo stored: StoredBundle) throws {
        guard header.bundleID == stored.bundleID, header.compartmentID == stored.compartment.id else {
            throw CryptoVaultError(.corruptBundle, "header: the file stored as bundle \(stored.idString) is a different bundle (swapped or replaced)")
        }
    }

    public func storedBundle(_ bundleID: BundleID) throws -> StoredBundle {
        guard let bundle = try storedBundles(where: "bundle_id = ?", [.blob(bundleID.bytes)]).first else {
            throw CryptoVaultError(.bundleNotFound, "no bundle \(bundleID) in this vault")
        }
        return bundle
    }

    /// Every stored bundle, or those of one compartment, oldest first.
    public func storedBundles(in compartment: VaultCompartment? = nil) throws -> [StoredBundle] {
        guard let compartment else { return try storedBundles(where: "1", []) }
        return try storedBundles(where: "compartment_id = ?", [.integer(compartment.rowID)])
    }

    /// The rows matching `condition` whose compartment is live, each with its compartment (looked up
    /// once per compartment).
    private func storedBundles(where condition: String, _ parameters: [SQLValue]) throws -> [StoredBundle] {
        let rows = try vault.withDatabase { database in
            try database.query("SELECT * FROM bundles WHERE (\(condition)) ORDER BY id", parameters)
        }
        var compartments: [Int64: VaultCompartment?] = [:]
        return try rows.compactMap { row in
            let rowID = try row.integer("compartment_id")
            if compartments[rowID] == nil { compartments[rowID] = .some(try liveCompartment(rowID: rowID)) }
            guard let compartment = compartments[rowID] ?? nil else { return nil }
            return StoredBundle(bundleID: try BundleID(bytes: try row.blob("bundle_id")), compartment: compartment,
                                keyVersion: UInt32(clamping: try row.integer("key_version")),
                                plaintextLength: UInt64(clamping: try row.integer("plaintext_length")),
                                sealedLength: UInt64(clamping: try row.integer("sealed_length")), createdAt: try row.integer("created_at"))
        }
    }

    /// Removes a stored bundle: its row and record commit first, then the file goes (a crash in between
    /// leaves an orphan file, which the next sweep deletes).
    public func removeStored(_ bundleID: BundleID) throws {
        let bundle = try storedBundle(bundleID)
        try vault.withDatabase { database in
            try database.writeTransaction {
                try database.query("DELETE FROM bundles WHERE bundle_id = ?", [.blob(bundleID.bytes)])
                try record(.bundleRm, compartmentID: bundle.compartment.id, bundleID: bundleID, bytes: bundle.plaintextLength, in: database)
            }
        }
        unlink(AssetFolder(path: vault.assetsPath).path(of: bundleID))
    }

    /// What `rewrapStored` did: how many bundles moved to the current version, and each one it could
    /// not open or rewrite, with the reason (the others were still done).
    public struct RewrapOutcome: Sendable {
        public var changed = 0
        public var skipped: [Skipped] = []
        /// The compartment's sealed records, rewrapped with its bundles (SECURITY.md §4.8).
        public var records = RecordRewrapOutcome()

        public struct Skipped: Sendable {
            public let bundleID: BundleID
            public let error: CryptoVaultError
        }
    }

    /// Rewraps every stored bundle of `compartment` sealed under an older key version to its current
    /// version, then its sealed records (`rewrapRecords`). Only headers are rewritten. A bundle that cannot be opened (its version retired, its
    /// file damaged) is skipped and named in the outcome, so one bad bundle does not strand the rest.
    public func rewrapStored(in compartment: VaultCompartment) throws -> RewrapOutcome {
        try Self.requireOwn(compartment)
        guard let current = compartment.currentVersion else {
            throw CryptoVaultError(.unknownKeyVersion, "compartment '\(compartment.name)' has no active key version")
        }
        var outcome = RewrapOutcome()
        for bundle in try storedBundles(in: compartment) where bundle.keyVersion != current {
            do {
                try rewrap(bundle, to: current)
                outcome.changed += 1
            } catch let error as CryptoVaultError {
                outcome.skipped.append(.init(bundleID: bundle.bundleID, error: error))
            }
        }
        outcome.records = try rewrapRecords(in: compartment)
        return outcome
    }

    private func rewrap(_ bundle: StoredBundle, to current: UInt32) throws {
        let assets = AssetFolder(path: vault.assetsPath)
        try finishInterruptedRewrap(of: bundle.bundleID)
        // The journal may have held this very rewrap, now finished and recorded: doing it again
        // would record a second rewrap that changed nothing.
        if try storedBundle(bundle.bundleID).keyVersion == current { return }
        // Rewrapping reads no plaintext and no metadata, so privileged compartments need no session.
        let opened = try EncryptedBundle.open(try FileDescriptor.openForReading(assets.path(of: bundle.bundleID)), vault: self,
                                              access: .maintenance, recordingReadsAs: nil)
        try Self.check(opened.header, belongsTo: bundle)
        let header = try opened.rewrappedHeader(for: current, vault: self)
        try assets.rewriteHeader(of: bundle.bundleID, with: header) { try recordRewrap(header) }
    }

    /// Completes a rewrap that a killed process left half done, so the row and the record match the
    /// header on disk.
    private func finishInterruptedRewrap(of bundleID: BundleID) throws {
        let stored = try storedBundle(bundleID)
        try AssetFolder(path: vault.assetsPath).finishInterruptedRewrap(of: bundleID, verify: { header in
            // A journal is only trusted once it authenticates as this bundle's header.
            try Self.check(header, belongsTo: stored)
            let dataKey = try EncryptedBundle.unwrapDataKey(header, compartment: stored.compartment, vault: self, access: .maintenance)
            _ = try EncryptedBundle.verifiedKeys(header, dataKey: dataKey)
        }, commit: { header in
            if stored.keyVersion != header.keyVersion { try recordRewrap(header) }
        })
    }

    private func recordRewrap(_ header: BundleHeader) throws {
        try vault.withDatabase { database in
            try database.writeTransaction {
                try database.query("UPDATE bundles SET key_version = ? WHERE bundle_id = ?",
                                   [.integer(Int64(header.keyVersion)), .blob(header.bundleID.bytes)])
                try record(.bundleRewrap, compartmentID: header.compartmentID, bundleID: header.bundleID, bytes: nil, in: database)
            }
        }
    }

    /// Deletes the temporary files interrupted operations left in assets/ (of processes that are
    /// gone) and moves each bundle file that has no row into `quarantine/`, recording
    /// `bundle.quarantine` for it (SECURITY.md §7): such a file may still be readable (vault.db alone
    /// was restored from an older copy), so it is never deleted. Runs under the write lock, so no other
    /// process can be between publishing a file and committing its row. Returns the files removed.
    @discardableResult
    public func sweepAssets() throws -> Int {
        let assets = AssetFolder(path: vault.assetsPath)
        return try vault.withDatabase { database in
            try database.writeTransaction {
                let known = Set(try database.query("SELECT bundle_id FROM bundles").map { ByteEncoding.hex(try $0.blob("bundle_id")) })
                let swept = try assets.sweep(keeping: known, quarantineFolder: vault.quarantinePath)
                for bundleID in swept.quarantined {
                    try record(.bundleQuarantine, compartmentID: nil, bundleID: bundleID, bytes: nil, in: database)
                }
                return swept.removed
            }
        }
    }
}

/// The `bundles` rows other owners need, inside the caller's transaction: every statement naming
/// the table is in this file or BundleRestore.swift (OwnedSQLGuardTests).
enum BundleStore {
    /// The bundles of the compartment at `compartmentRowID` sealed under `keyVersion`, oldest first (for `retire`).
    static func bundleIDs(compartmentRowID: Int64, keyVersion: UInt32, in database: Database) throws -> [BundleID] {
        try database.query("SELECT bundle_id FROM bundles WHERE compartment_id = ? AND key_version = ? ORDER BY id",
                           [.integer(compartmentRowID), .integer(Int64(keyVersion))]).map { try BundleID(bytes: try $0.blob("bundle_id")) }
    }

    /// Deletes every bundle row of the compartment at `compartmentRowID` (for `destroy`), returning
    /// each one's id and plaintext length.
    static func removeAll(compartmentRowID: Int64, in database: Database) throws -> [(id: BundleID, bytes: UInt64)] {
        let bundles = try database.query("SELECT bundle_id, plaintext_length FROM bundles WHERE compartment_id = ? ORDER BY id",
                                         [.integer(compartmentRowID)])
            .map { (id: try BundleID(bytes: try $0.blob("bundle_id")), bytes: UInt64(clamping: try $0.integer("plaintext_length"))) }
        try database.query("DELETE FROM bundles WHERE compartment_id = ?", [.integer(compartmentRowID)])
        return bundles
    }

    /// Every bundle's id, sealed length and compartment row, in bundle id order (for a backup).
    static func files(in database: Database) throws -> [(id: BundleID, length: UInt64, compartmentRowID: Int64)] {
        try database.query("SELECT bundle_id, sealed_length, compartment_id FROM bundles ORDER BY bundle_id").map {
            (try BundleID(bytes: try $0.blob("bundle_id")), UInt64(clamping: try $0.integer("sealed_length")), try $0.integer("compartment_id"))
        }
    }
}
