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
    /// Opens the record at `location` (no session needed: `.maintenance`) into locked scratch memory
    /// and seals it again from there under `version`, recording `record.rewrap` with the version it
    /// came from. Returns that version.
    @discardableResult
    func rewrap(_ location: SealedRecordLocation, in compartment: VaultCompartment, to version: UInt32) throws -> UInt32 {
        try withScratch { scratch in
            let (old, count) = try open(location, in: compartment, access: .maintenance, into: scratch)
            defer { scratch.wipe(count) }
            let recordKey = try key(compartment, version, access: .maintenance)
            let digestKey = try digestKey(compartment, version, access: .maintenance)
            let (sealed, digest) = try scratch.read(count) {
                (try SealedRecordCodec.seal(bytes: $0, identity: old.at(keyVersion: version), recordKey: recordKey, tagCache: tagCache),
                 SealedRecordDigest.digest(of: $0, at: location, key: digestKey))
            }
            try store.write(sealed, digest: digest, at: location, compartmentRowID: compartment.rowID, keyVersion: version)
            try journalRewrap(location, in: compartment, from: old.keyVersion)
            return old.keyVersion
        }
    }
}
