/// Sealing and opening sealed records inside one write transaction of the vault (SECURITY.md §4.8).
///
/// Each seal is recorded in a `record.seal` entry and each open in a `record.open` by this type (one
/// of each per compartment and transaction naming up to 64 records, `RecordEntryGroups`), in the
/// same transaction as the change or the read, whoever the caller is. A privileged compartment's records
/// are opened only with a live session's keyring, by the same rule as bundles (`CompartmentKeyAccess`):
/// without one, `.privilegedSessionRequired`.
///
/// Record keys are looked up once per compartment and key version and held for the life of this
/// value, which is one transaction: the version's salt is read in the transaction, and the keys are
/// the vault's kept ones for that salt (`RecordKeyCache`), or, through a privileged session's keyring,
/// derived from its compartment key once per transaction.
final class SealedRecords {
    /// Opened records named per `record.open` entry: few entries for a large read.
    static let recordsPerOpenEntry = 64
    /// The most bytes an entry's `records` (the names, one a line) takes: an audit detail's value is
    /// at most 4 KiB (SECURITY.md §8.2), and 64 names of 65 bytes (a snapshot part's) are more, as
    /// are 13 of the longest (323 bytes). An entry ends at whichever limit comes first.
    static let namesPerOpenEntry = 4096

    let vault: UnlockedVault
    /// `vault.vaultID`, read once: every record's identity names it.
    private let vaultID: VaultID
    let store: SealedRecordStore
    private let database: Database
    private let journal: (VaultEvent) throws -> Void
    /// Names a record sealed (`.recordSeal`) or opened (`.recordOpen`) in the transaction's group of
    /// them (`RecordEntryGroups`): recorded in an entry of many.
    private let journalRecord: (SealedRecordLocation, Int, AuditAction, CompartmentID) throws -> Void
    private var versionKeys: [KeyName: RecordKeys] = [:]
    private var lastKey: (name: KeyName, key: SecureBytes)?
    let tagCache = SealedRecordCodec.TagCache()
    private var idleScratch: PlaintextScratch?

    private struct KeyName: Hashable {
        let compartment: CompartmentID
        let version: UInt32
    }

    /// `journal` appends an event to the audit log inside the transaction `database` is in.
    init(vault: UnlockedVault, database: Database, journal: @escaping (VaultEvent) throws -> Void,
         journalRecord: @escaping (SealedRecordLocation, Int, AuditAction, CompartmentID) throws -> Void) {
        self.journalRecord = journalRecord
        self.vault = vault
        self.vaultID = vault.vaultID
        self.database = database
        self.store = SealedRecordStore(database)
        self.journal = journal
    }

    /// Seals `plaintext` (bytes where they lie: an array's or a SecureBytes') at `location` in
    /// `compartment` under its current key version, replacing the location's earlier value (of the
    /// same compartment only), and records `record.seal`.
    @discardableResult
    func seal(bytes plaintext: UnsafeRawBufferPointer, at location: SealedRecordLocation, in compartment: VaultCompartment) throws -> SealedRecordIdentity {
        try UnlockedVault.requireOwn(compartment)
        guard let version = compartment.currentVersion else {
            throw CryptoVaultError(.unknownKeyVersion, "compartment '\(compartment.name)' has no active key version")
        }
        let identity = SealedRecordIdentity(vaultID: vaultID, compartmentID: compartment.id, keyVersion: version, location: location)
        // Sealing reads nothing, so it needs no session; the key is derived from the database inside
        // this transaction, so a version retired or a compartment destroyed meanwhile is refused.
        let sealed = try SealedRecordCodec.seal(bytes: plaintext, identity: identity, recordKey: try key(compartment, version, access: .maintenance),
                                                tagCache: tagCache)
        let digest = SealedRecordDigest.digest(of: plaintext, at: location, key: try digestKey(compartment, version, access: .maintenance))
        try store.write(sealed, digest: digest, at: location, compartmentRowID: compartment.rowID, keyVersion: version)
        try journalRecord(location, plaintext.count, .recordSeal, compartment.id)
        return identity
    }

    /// Opens the record at `location` of `compartment` into a SecureBytes of its own and records
    /// it in the transaction's `record.open` entry.
    func open(_ location: SealedRecordLocation, in compartment: VaultCompartment, access: CompartmentKeyAccess) throws -> SecureBytes {
        let plaintext = try withCheckedRow(location, in: compartment) { identity, sealed in
            // Decrypted from SQLite's row buffer: the sealed bytes are not copied.
            try SealedRecordCodec.open(bytes: sealed, identity: identity, recordKey: try key(compartment, identity.keyVersion, access: access))
        }
        try journalRecord(location, plaintext.count, .recordOpen, compartment.id)
        return plaintext
    }

    /// Opens the records at `locations` of `compartment` one after another, in order, handing each
    /// to `body` with its index while it lies in a locked scratch buffer of this transaction (valid
    /// only during the call, wiped after it): no allocation per record, and no more memory locked
    /// than the largest record needs however many are read. The first record that fails to open
    /// stops the call with its error. Every record handed to `body` is named in the transaction's
    /// `record.open` entries, even when a later one fails or `body` throws.
    func open(_ locations: [SealedRecordLocation], in compartment: VaultCompartment, access: CompartmentKeyAccess,
              _ body: (Int, UnsafeRawBufferPointer) throws -> Void) throws {
        try withScratch { scratch in
            for (index, location) in locations.enumerated() {
                let count = try openNext(location, in: compartment, access: access, into: scratch)
                // Named once body has it, whether or not it returns (and again after a rollback, by the transaction).
                try journalRecord(location, count, .recordOpen, compartment.id)
                defer { scratch.wipe(count) }
                try scratch.read(count) { try body(index, $0) }
            }
        }
    }

    /// Whether the record at `location` of `compartment` holds exactly `plaintext`, told by its row's
    /// keyed digest without opening it. False when the location holds no record, another
    /// compartment's, or a record sealed before digests were kept (the caller then opens it to compare).
    /// It needs the access an open needs (a privileged compartment's only with its session's
    /// keyring): the answer says something of the stored value. It releases nothing and is not an
    /// open (SECURITY.md §4.8): its caller holds the value it asks about.
    func holds(_ plaintext: UnsafeRawBufferPointer, at location: SealedRecordLocation, in compartment: VaultCompartment,
               access: CompartmentKeyAccess) throws -> Bool {
        try access.authorize(compartment)
        guard let row = try store.digest(at: location), row.compartmentRowID == compartment.rowID, let stored = row.digest else { return false }
        let digest = SealedRecordDigest.digest(of: plaintext, at: location, key: try digestKey(compartment, row.keyVersion, access: access))
        return constantTimeEquals(digest, stored)
    }

    /// Deletes the record at `location` of `compartment` and records `record.rm`.
    func remove(_ location: SealedRecordLocation, in compartment: VaultCompartment) throws {
        guard try store.remove(location, compartmentRowID: compartment.rowID) else {
            throw CryptoVaultError(.recordNotFound, "no sealed record \(location) in '\(compartment.name)'")
        }
        try journal(VaultEvent(.recordRm, compartmentID: compartment.id, details: [.init("record", location.description)]))
    }

    func journalRewrap(_ location: SealedRecordLocation, in compartment: VaultCompartment, from version: UInt32) throws {
        try journal(VaultEvent(.recordRewrap, compartmentID: compartment.id, subjectID: VaultCompartment.keyVersionSubject(version),
                               details: [.init("record", location.description)]))
    }

    /// Calls `body` with the identity the row at `location` must open as and its sealed bytes (lent
    /// from SQLite's row buffer), after checking that the row is `compartment`'s and that its key
    /// version column is its value's.
    func withCheckedRow<Result>(_ location: SealedRecordLocation, in compartment: VaultCompartment,
                                _ body: (SealedRecordIdentity, UnsafeRawBufferPointer) throws -> Result) throws -> Result {
        let opened = try store.withRow(location) { compartmentRowID, keyVersion, sealed in
            try checkRow(location, in: compartment, compartmentRowID: compartmentRowID, keyVersion: keyVersion, sealed: sealed)
            return try body(SealedRecordIdentity(vaultID: vaultID, compartmentID: compartment.id, keyVersion: keyVersion, location: location),
                            sealed)
        }
        guard let opened else { throw CryptoVaultError(.recordNotFound, "no sealed record \(location)") }
        return opened
    }

    /// The row at `location` must be `compartment`'s (otherwise destroy and retire, which go by the
    /// row, would not account for it), and its key version column its value's.
    private func checkRow(_ location: SealedRecordLocation, in compartment: VaultCompartment, compartmentRowID: Int64, keyVersion: UInt32,
                          sealed: UnsafeRawBufferPointer) throws {
        guard compartmentRowID == compartment.rowID else {
            throw CryptoVaultError(.recordFromAnotherCompartment, "sealed record \(location) belongs to another compartment than '\(compartment.name)'")
        }
        let headerVersion = try SealedRecordCodec.Header.keyVersion(parsing: sealed)
        guard headerVersion == keyVersion else {
            throw CryptoVaultError(.corruptRecord, "sealed record \(location) says key version \(headerVersion), its row \(keyVersion) "
                                   + "(the row is damaged; 'vaultctl repair' writes it again from the record)")
        }
    }

    /// Opens the record at `location` into `scratch` (unrecorded: the caller records it), returning
    /// the identity it opened as and its plaintext's size.
    func open(_ location: SealedRecordLocation, in compartment: VaultCompartment, access: CompartmentKeyAccess,
              into scratch: PlaintextScratch) throws -> (identity: SealedRecordIdentity, count: Int) {
        try withCheckedRow(location, in: compartment) { identity, sealed in
            let count = try SealedRecordCodec.plaintextSize(sealed)
            let recordKey = try key(compartment, identity.keyVersion, access: access)
            try scratch.fill(count) {
                try SealedRecordCodec.open(bytes: sealed, identity: identity, recordKey: recordKey, into: $0, reusing: scratch.cipher)
            }
            return (identity, count)
        }
    }

    /// `open(_:in:access:into:)` for a batch, returning the plaintext's size only: the same checks
    /// and the same open, through no closure and with the identity's parts lent to the codec rather
    /// than copied into an identity value per record (copies of the compartment and of the
    /// location's strings, and the closures' generic layers, were a fifth of a batch's cost).
    private func openNext(_ location: SealedRecordLocation, in compartment: VaultCompartment, access: CompartmentKeyAccess,
                          into scratch: PlaintextScratch) throws -> Int {
        defer { store.endLookup() }
        guard let row = try store.beginLookup(location) else { throw CryptoVaultError(.recordNotFound, "no sealed record \(location)") }
        try checkRow(location, in: compartment, compartmentRowID: row.compartmentRowID, keyVersion: row.keyVersion, sealed: row.sealed)
        let count = try SealedRecordCodec.plaintextSize(row.sealed)
        let recordKey = try key(compartment, row.keyVersion, access: access)
        try SealedRecordCodec.open(bytes: row.sealed, vaultID: vaultID, compartmentID: compartment.id, keyVersion: row.keyVersion,
                                   location: location, recordKey: recordKey, into: try scratch.prepare(count), reusing: scratch.cipher,
                                   associatedData: scratch.associatedData)
        return count
    }

    /// Runs `body` with this transaction's scratch buffer, or with a new one if it is in use (a
    /// `body` of `open` that opens records itself): one is never shared by two readers at once.
    func withScratch<Result>(_ body: (PlaintextScratch) throws -> Result) rethrows -> Result {
        let scratch = idleScratch ?? PlaintextScratch()
        idleScratch = nil
        defer { idleScratch = scratch }
        return try body(scratch)
    }

    /// The record key of `compartment` at `version`, through `access` (which enforces the privileged
    /// rule, checked at every call since a cached key may have been derived through another access),
    /// derived at most once per transaction.
    func key(_ compartment: VaultCompartment, _ version: UInt32, access: CompartmentKeyAccess) throws -> SecureBytes {
        try access.authorize(compartment)
        let name = KeyName(compartment: compartment.id, version: version)
        // A read of many records asks for the same key each time: the last one answers without hashing.
        if let lastKey, lastKey.name == name { return lastKey.key }
        let key = try keys(compartment, version, name, access: access).record
        lastKey = (name, key)
        return key
    }

    /// The digest key (`SealedRecordDigest`) of `compartment` at `version`, through `access`, derived
    /// at most once per transaction.
    func digestKey(_ compartment: VaultCompartment, _ version: UInt32, access: CompartmentKeyAccess) throws -> SecureBytes {
        try access.authorize(compartment)
        return try keys(compartment, version, KeyName(compartment: compartment.id, version: version), access: access).digest
    }

    /// The keys of `compartment` at `version`, looked up (the salt read in this transaction) at their
    /// first use in the transaction. The caller has authorized `access`.
    private func keys(_ compartment: VaultCompartment, _ version: UInt32, _ name: KeyName,
                      access: CompartmentKeyAccess) throws -> RecordKeys {
        if let cached = versionKeys[name] { return cached }
        let keys = try access.recordKeys(for: compartment, version: version, vault: vault, in: database)
        versionKeys[name] = keys
        return keys
    }
}

/// Locked memory that opened records pass through one at a time (`SealedRecords.open(_:in:access:_:)`
/// and rewrap): it grows to the largest record seen and is wiped after each one, so reading many
/// records allocates and locks once. It keeps one cipher context for them too, which holds the last
/// record's one-time subkey until the next record or the scratch's end (then cleansed).
final class PlaintextScratch {
    private var buffer: SecureBytes?
    let cipher = BulkChaChaPoly.Context()
    /// Where a batch open builds each record's associated data (public parts of its identity: ordinary memory).
    let associatedData = UnsafeMutableRawBufferPointer.allocate(byteCount: SealedRecordCodec.maximumAssociatedDataSize, alignment: 1)

    deinit { associatedData.deallocate() }

    /// The first `count` bytes, to write a plaintext into (`fill` without the closure), growing the
    /// buffer if needed; valid until the next `prepare` or `fill`.
    func prepare(_ count: Int) throws -> UnsafeMutableRawBufferPointer {
        if (buffer?.count ?? -1) < count { buffer = try SecureBytes(count: max(count, 4096)) }
        return buffer!.withUnsafeMutableBytes { UnsafeMutableRawBufferPointer(rebasing: $0[0..<count]) }
    }

    /// Calls `body` with the first `count` bytes, to write a plaintext into, growing the buffer if needed.
    func fill<Result>(_ count: Int, _ body: (UnsafeMutableRawBufferPointer) throws -> Result) throws -> Result {
        if (buffer?.count ?? -1) < count {
            // At least a page: libsodium hands out whole pages, and small records then never regrow it.
            buffer = try SecureBytes(count: max(count, 4096))
        }
        return try buffer!.withUnsafeMutableBytes { try body(UnsafeMutableRawBufferPointer(rebasing: $0[0..<count])) }
    }

    /// Calls `body` with the first `count` bytes (a plaintext `fill` put there).
    func read<Result>(_ count: Int, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try buffer!.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
    }

    func wipe(_ count: Int) { buffer?.wipe(prefix: count) }
}
