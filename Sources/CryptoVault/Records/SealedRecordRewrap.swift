/// Rewrapping sealed records: unlike a bundle, whose data key is wrapped once in its header, a record
/// is sealed directly under its version's record key, so moving it to the current version opens and
/// seals it again (inside CryptoVault, releasing nothing) with a fresh nonce.
extension UnlockedVault {
    /// What `rewrapRecords` did: how many records moved to the current version, and each one it could
    /// not open (named with the reason; the others were still done).
    public struct RecordRewrapOutcome: Sendable {
        public var changed = 0
        public var skipped: [Skipped] = []

        public struct Skipped: Sendable {
            public let location: SealedRecordLocation
            public let error: CryptoVaultError
        }
    }

    /// Re-seals every sealed record of `compartment` under an older key version to its current
    /// version, each recorded as `record.rewrap`, in one transaction. Needs no session: the plaintext
    /// never leaves this function.
    public func rewrapRecords(in compartment: VaultCompartment) throws -> RecordRewrapOutcome {
        try Self.requireOwn(compartment)
        guard let current = compartment.currentVersion else {
            throw CryptoVaultError(.unknownKeyVersion, "compartment '\(compartment.name)' has no active key version")
        }
        return try transaction { transaction in
            let records = transaction.sealedRecords
            var outcome = RecordRewrapOutcome()
            for location in try records.store.locations(compartmentRowID: compartment.rowID, keyVersion: current, excluding: true) {
                do {
                    try records.rewrap(location, in: compartment, to: current)
                    outcome.changed += 1
                } catch let error as CryptoVaultError {
                    outcome.skipped.append(.init(location: location, error: error))
                }
            }
            return outcome
        }
    }
}

extension SealedRecords {
    /// Opens the record at `location` (no session needed: `.maintenance`) and seals it again under
    /// `version`, recording `record.rewrap` with the version it came from. Returns that version.
    @discardableResult
    func rewrap(_ location: SealedRecordLocation, in compartment: VaultCompartment, to version: UInt32) throws -> UInt32 {
        guard let stored = try store.read(location), stored.compartmentRowID == compartment.rowID else {
            throw CryptoVaultError(.recordNotFound, "no sealed record \(location) in '\(compartment.name)'")
        }
        let old = SealedRecordIdentity(vaultID: vault.vaultID, compartmentID: compartment.uuid, keyVersion: stored.keyVersion, location: location)
        let header = try SealedRecordCodec.Header(parsing: stored.sealed)
        guard header.keyVersion == stored.keyVersion else {
            throw CryptoVaultError(.corruptRecord, "sealed record \(location) says key version \(header.keyVersion), its row \(stored.keyVersion)")
        }
        let plaintext = try SealedRecordCodec.open(stored.sealed, identity: old, recordKey: try key(compartment, stored.keyVersion, access: .maintenance))
        let sealed = try SealedRecordCodec.seal(plaintext, identity: old.at(keyVersion: version),
                                                recordKey: try key(compartment, version, access: .maintenance))
        try store.write(sealed, at: location, compartmentRowID: compartment.rowID, keyVersion: version)
        try journalRewrap(location, in: compartment, from: stored.keyVersion)
        return stored.keyVersion
    }
}
