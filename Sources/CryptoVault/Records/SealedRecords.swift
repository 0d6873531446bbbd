/// Sealing and opening sealed records inside one write transaction of the vault (SECURITY.md §4.8).
///
/// Each seal is recorded as `record.seal` and each open as `record.open` by this type, in the same
/// transaction as the change or the read, whoever the caller is. A privileged compartment's records
/// are opened only with a live session's keyring, by the same rule as bundles (`CompartmentKeyAccess`):
/// without one, `.privilegedSessionRequired`.
///
/// Record keys are derived once per compartment and key version and kept (in SecureBytes) for the
/// life of this value, which is one transaction: sealing thousands of records derives one key.
final class SealedRecords {
    /// Opened records named per `record.open` entry: enough to keep an entry far below the audit
    /// log's 64 KiB limit (each location is at most 323 bytes), few entries for a large read.
    static let recordsPerOpenEntry = 64

    let vault: UnlockedVault
    let store: SealedRecordStore
    private let database: Database
    private let journal: (VaultEvent) throws -> Void
    private var keys: [KeyName: SecureBytes] = [:]
    private let tagCache = SealedRecordCodec.TagCache()

    private struct KeyName: Hashable {
        let compartment: [UInt8]
        let version: UInt32
    }

    /// `journal` appends an event to the audit log inside the transaction `database` is in.
    init(vault: UnlockedVault, database: Database, journal: @escaping (VaultEvent) throws -> Void) {
        self.vault = vault
        self.database = database
        self.store = SealedRecordStore(database)
        self.journal = journal
    }

    /// Seals `plaintext` at `location` in `compartment` under its current key version, replacing the
    /// location's earlier value (of the same compartment only), and records `record.seal`.
    @discardableResult
    func seal(_ plaintext: [UInt8], at location: SealedRecordLocation, in compartment: VaultCompartment) throws -> SealedRecordIdentity {
        try UnlockedVault.requireOwn(compartment)
        guard let version = compartment.currentVersion else {
            throw CryptoVaultError(.unknownKeyVersion, "compartment '\(compartment.name)' has no active key version")
        }
        let identity = SealedRecordIdentity(vaultID: vault.vaultID, compartmentID: compartment.uuid, keyVersion: version, location: location)
        // Sealing reads nothing, so it needs no session; the key is derived from the database inside
        // this transaction, so a version retired or a compartment destroyed meanwhile is refused.
        let sealed = try SealedRecordCodec.seal(plaintext, identity: identity, recordKey: try key(compartment, version, access: .maintenance),
                                                tagCache: tagCache)
        try store.write(sealed, at: location, compartmentRowID: compartment.rowID, keyVersion: version)
        try journal(VaultEvent(.recordSeal, compartmentID: compartment.uuid,
                               details: [.init("record", location.description), .init(UnlockedVault.bytesDetailName, String(plaintext.count))]))
        return identity
    }

    /// Opens the records at `locations` of `compartment` (all of them or none), recording them as
    /// `record.open` entries of up to 64 records each.
    func open(_ locations: [SealedRecordLocation], in compartment: VaultCompartment, access: CompartmentKeyAccess) throws -> [[UInt8]] {
        var values: [[UInt8]] = []
        values.reserveCapacity(locations.count)
        for location in locations { values.append(try openUnrecorded(location, in: compartment, access: access)) }
        var start = 0
        while start < locations.count {
            let end = min(start + Self.recordsPerOpenEntry, locations.count)
            let bytes = values[start..<end].reduce(0) { $0 + $1.count }
            try journal(VaultEvent(.recordOpen, compartmentID: compartment.uuid,
                                   details: [.init("records", locations[start..<end].map(\.description).joined(separator: "\n")),
                                             .init("count", String(end - start)), .init(UnlockedVault.bytesDetailName, String(bytes))]))
            start = end
        }
        return values
    }

    /// Deletes the record at `location` of `compartment` and records `record.rm`.
    func remove(_ location: SealedRecordLocation, in compartment: VaultCompartment) throws {
        guard try store.remove(location, compartmentRowID: compartment.rowID) else {
            throw CryptoVaultError(.recordNotFound, "no sealed record \(location) in '\(compartment.name)'")
        }
        try journal(VaultEvent(.recordRm, compartmentID: compartment.uuid, details: [.init("record", location.description)]))
    }

    func journalRewrap(_ location: SealedRecordLocation, in compartment: VaultCompartment, from version: UInt32) throws {
        try journal(VaultEvent(.recordRewrap, compartmentID: compartment.uuid, subjectID: VaultCompartment.keyVersionSubject(version),
                               details: [.init("record", location.description)]))
    }

    private func openUnrecorded(_ location: SealedRecordLocation, in compartment: VaultCompartment,
                                access: CompartmentKeyAccess) throws -> [UInt8] {
        let opened = try store.withRow(location) { compartmentRowID, keyVersion, sealed in
            // The row's compartment must be the one the caller opens it as: otherwise destroy and retire,
            // which go by the row, would not account for it.
            guard compartmentRowID == compartment.rowID else {
                throw CryptoVaultError(.recordFromAnotherCompartment, "sealed record \(location) belongs to another compartment than '\(compartment.name)'")
            }
            let headerVersion = try SealedRecordCodec.Header.keyVersion(parsing: sealed)
            guard headerVersion == keyVersion else {
                throw CryptoVaultError(.corruptRecord, "sealed record \(location) says key version \(headerVersion), its row \(keyVersion)")
            }
            let identity = SealedRecordIdentity(vaultID: vault.vaultID, compartmentID: compartment.uuid, keyVersion: keyVersion,
                                                location: location)
            // Decrypted from SQLite's row buffer: the sealed bytes are not copied.
            return try SealedRecordCodec.open(bytes: sealed, identity: identity, recordKey: try key(compartment, keyVersion, access: access))
        }
        guard let opened else { throw CryptoVaultError(.recordNotFound, "no sealed record \(location)") }
        return opened
    }

    /// The record key of `compartment` at `version`, through `access` (which enforces the privileged
    /// rule, checked at every call since a cached key may have been derived through another access),
    /// derived at most once per transaction.
    func key(_ compartment: VaultCompartment, _ version: UInt32, access: CompartmentKeyAccess) throws -> SecureBytes {
        try access.authorize(compartment)
        let name = KeyName(compartment: compartment.uuid, version: version)
        if let cached = keys[name] { return cached }
        let key = try SealedRecordCodec.recordKey(compartmentKey: try access.key(for: compartment, version: version, vault: vault, in: database))
        keys[name] = key
        return key
    }
}
