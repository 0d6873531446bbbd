import Synchronization

/// A vault whose master key is in memory (in `SecureBytes`, wiped when this object is released).
/// Everything that needs a key goes through here: keyslot changes and compartments.
public final class UnlockedVault: @unchecked Sendable {
    public let vault: Vault
    let masterKey: SecureBytes
    /// The slot that was used to unlock, or nil right after `init`.
    public let unlockedSlotID: Int64?
    /// The passphrase slots as read when unlocking: `changePassphrase` changes them only if they are
    /// still these when it commits, so two `passwd` at once cannot both succeed (SECURITY.md §4.3).
    let passphraseSlotsAtUnlock: [Keyslot]?
    /// What the unlock skipped and why (a refused keyslot row, a KDF policy it could not trust), for
    /// the caller to show as warnings: one hostile row must not lock the owner out, nor pass unsaid.
    public internal(set) var unlockWarnings: [String] = []

    /// Keys that depend on the master key and the vault id alone (the audit keys, the
    /// compartment-name keys, the metadata MAC key): derived at their first use and kept, in SecureBytes, for as long as
    /// the master key is, and released with it. Every transaction used to derive them again: an
    /// HKDF and four locked allocations apiece, each allocation a handful of system calls.
    private let derivedKeys = Mutex(DerivedKeys())
    /// Record keys derived from the master key, kept by compartment, version and salt (`RecordKeyCache`).
    let recordKeyCache = RecordKeyCache()
    /// Told of each committed transaction of this process on this vault (the daemon's sync after a save).
    public let commits = CommitObservers()

    private struct DerivedKeys {
        var audit: AuditKeys?
        var compartmentNames: CompartmentNameKeys?
        var metadata: MetadataMAC?
    }

    init(vault: Vault, masterKey: SecureBytes, unlockedSlotID: Int64?, passphraseSlotsAtUnlock: [Keyslot]? = nil) {
        self.vault = vault
        self.masterKey = masterKey
        self.unlockedSlotID = unlockedSlotID
        self.passphraseSlotsAtUnlock = passphraseSlotsAtUnlock
    }

    var vaultID: VaultID { vault.vaultID }

    /// Appends `event` to the vault's journal inside the caller's write transaction.
    func journal(_ event: VaultEvent, in database: Database) throws {
        try database.appendWaitingEntries?()
        try vault.journal.append(event, in: database, vaultID: vaultID, keys: try auditKeys())
    }

    /// The keys that seal audit details and key their hashes (for `vaultctl audit hash` and exports).
    public func auditKeys() throws -> AuditKeys {
        try derivedKeys.withLock { kept in
            if let keys = kept.audit { return keys }
            let keys = try AuditKeys(masterKey: masterKey, vaultID: vaultID)
            kept.audit = keys
            return keys
        }
    }

    /// The keys that seal compartment names and key their lookup hashes (kept as `auditKeys` are).
    func compartmentNameKeys() throws -> CompartmentNameKeys {
        try derivedKeys.withLock { kept in
            if let keys = kept.compartmentNames { return keys }
            let keys = try CompartmentNameKeys(masterKey: masterKey, vaultID: vaultID)
            kept.compartmentNames = keys
            return keys
        }
    }

    /// The key of the MACs over the vault's clear metadata (kept as `auditKeys` are): every
    /// compartment loaded checks its binding with it, several times a transaction.
    func metadataMAC() throws -> MetadataMAC {
        try derivedKeys.withLock { kept in
            if let metadata = kept.metadata { return metadata }
            let metadata = try MetadataMAC(masterKey: masterKey, vaultID: vaultID)
            kept.metadata = metadata
            return metadata
        }
    }

    /// Records an event that changes nothing else (a refusal, a session's end): a transaction whose
    /// only change is its entry.
    public func record(_ event: VaultEvent) throws {
        try transaction { try $0.record(event) }
    }

    // MARK: Passphrase slots

    func insertPassphraseSlot(_ passphrase: SecureBytes, parameters: KDFParameters, in database: Database) throws {
        let uuid = try KeyslotID.random()
        try insertPassphraseSlot(columns: try passphraseSlotColumns(passphrase, parameters: parameters, uuid: uuid),
                                 uuid: uuid, in: database)
    }

    private func insertPassphraseSlot(columns: (kdf: KeyslotKDF, salt: [UInt8], nonce: [UInt8], wrappedKey: [UInt8]),
                                      uuid: KeyslotID, in database: Database) throws {
        let now = VaultClock.system.now()
        try database.query("""
            INSERT INTO keyslots (uuid, kind, kdf, salt, nonce, wrapped_key, created_at, updated_at)
            VALUES (?, 'passphrase', ?, ?, ?, ?, ?, ?)
            """, [.blob(uuid.bytes), .text(columns.kdf.encoded), .blob(columns.salt), .blob(columns.nonce),
                  .blob(columns.wrappedKey), .integer(now), .integer(now)])
    }

    /// Fresh salt and nonce, the master key wrapped under the passphrase's KEK.
    private func passphraseSlotColumns(_ passphrase: SecureBytes, parameters: KDFParameters, uuid: KeyslotID)
        throws -> (kdf: KeyslotKDF, salt: [UInt8], nonce: [UInt8], wrappedKey: [UInt8]) {
        try parameters.validate()
        let salt = try SecureRandom.bytes(KeyHierarchy.saltSize)
        let kek = try KeyHierarchy.passphraseKEK(passphrase, salt: salt, parameters: parameters, vaultID: vaultID)
        let kdf = KeyslotKDF.passwordHash(parameters)
        let sealed = try Keyslot.seal(masterKey: masterKey, kek: kek, vaultID: vaultID, uuid: uuid, kind: .passphrase, kdf: kdf)
        return (kdf, salt, sealed.nonce, sealed.wrappedKey)
    }

    /// Rewrites one passphrase slot in place, in one transaction: SQLite's atomic commit is what makes
    /// a crash at any moment leave either the old row (old passphrase) or the new one. The update is
    /// conditional on the row still being the one `slot` was read from (same salt, nonce and wrapped
    /// key): if another process changed it meanwhile, this one fails with `.keyslotChanged` instead
    /// of overwriting a passphrase that process already reported as set.
    private func rewritePassphraseSlot(_ slot: Keyslot, passphrase: SecureBytes, parameters: KDFParameters, event: AuditAction) throws {
        let columns = try passphraseSlotColumns(passphrase, parameters: parameters, uuid: slot.uuid)
        try vault.withDatabase { database in
            try database.writeTransaction {
                try database.query("""
                    UPDATE keyslots SET kdf = ?, salt = ?, nonce = ?, wrapped_key = ?, updated_at = ?
                    WHERE id = ? AND kind = 'passphrase' AND salt = ? AND nonce = ? AND wrapped_key = ?
                    """, [.text(columns.kdf.encoded), .blob(columns.salt), .blob(columns.nonce),
                          .blob(columns.wrappedKey), .integer(VaultClock.system.now()), .integer(slot.id),
                          .blob(slot.salt), .blob(slot.nonce), .blob(slot.wrappedKey)])
                guard database.changes == 1 else { throw Self.slotChanged(slot.id) }
                try journal(VaultEvent(event, subject: slot.uuid), in: database)
            }
        }
    }

    private static func slotChanged(_ id: Int64) -> CryptoVaultError {
        CryptoVaultError(.keyslotChanged,
            "passphrase slot \(id) was changed by another command since this one unlocked (a concurrent passwd?); nothing was changed, unlock again and retry")
    }

    /// Re-wraps `slot` toward the vault's authenticated policy, never weakening any parameter
    /// (`KDFParameters.upgraded(toward:)`). An unauthenticated or malformed policy upgrades nothing and
    /// is reported in `unlockWarnings`; so is a slot another process changed meanwhile.
    /// Returns true when the slot was upgraded.
    @discardableResult
    func upgradeIfWeak(_ slot: Keyslot, passphrase: SecureBytes) throws -> Bool {
        guard case .passwordHash(let current) = slot.kdf else { return false }
        let (policy, problem) = try authenticatedKDFPolicy()
        guard let policy else {
            unlockWarnings.append("\(problem ?? "the KDF policy cannot be used"); no keyslot was upgraded")
            return false
        }
        guard let target = current.upgraded(toward: policy) else { return false }
        do {
            try rewritePassphraseSlot(slot, passphrase: passphrase, parameters: target, event: .keyslotUpgrade)
        } catch let error as CryptoVaultError where error.code == .keyslotChanged {
            return false
        }
        return true
    }

    /// The parameters of a new passphrase slot: the authenticated policy, else the default, and never
    /// weaker in any parameter than `replacing` (the slot being rewritten).
    private func parametersForNewSlot(replacing current: KDFParameters?) throws -> KDFParameters {
        let base = try authenticatedKDFPolicy().policy ?? .argon2idDefault
        guard let current else { return base }
        return current.upgraded(toward: base) ?? current
    }

    /// Sets a new passphrase. If the vault was unlocked with a passphrase, that slot is rewritten;
    /// if it was unlocked with a recovery method, every passphrase slot is replaced by one new slot.
    /// Either way only if the passphrase slots are still as they were at unlock (`.keyslotChanged`).
    public func changePassphrase(to newPassphrase: SecureBytes) throws {
        let slots = try passphraseSlotsAtUnlock ?? vault.readableKeyslots().slots.filter { $0.kind == .passphrase }
        if let slot = slots.first(where: { $0.id == unlockedSlotID }) {
            guard case .passwordHash(let current) = slot.kdf else { throw Self.slotChanged(slot.id) }
            try rewritePassphraseSlot(slot, passphrase: newPassphrase, parameters: try parametersForNewSlot(replacing: current),
                                      event: .keyslotPasswd)
            return
        }
        let parameters = try parametersForNewSlot(replacing: nil)
        let uuid = try KeyslotID.random()
        let columns = try passphraseSlotColumns(newPassphrase, parameters: parameters, uuid: uuid)
        try vault.withDatabase { database in
            try database.writeTransaction {
                let now = try database.query("SELECT id, wrapped_key FROM keyslots WHERE kind = 'passphrase' ORDER BY id")
                    .map { "\(try $0.integer("id")):\(ByteEncoding.hex(try $0.blob("wrapped_key")))" }
                let before = slots.map { "\($0.id):\(ByteEncoding.hex($0.wrappedKey))" }
                guard now == before else { throw Self.slotChanged(slots.first?.id ?? 0) }
                try database.query("DELETE FROM keyslots WHERE kind = 'passphrase'")
                try insertPassphraseSlot(columns: columns, uuid: uuid, in: database)
                try journal(VaultEvent(.keyslotPasswdReplace), in: database)
            }
        }
    }

    // MARK: Recovery slots

    /// Creates a recovery key and its slot. The returned key is the only copy: the caller shows it once.
    /// An earlier recovery key is replaced (and stops working) only when `replacing` says the caller
    /// confirmed it; otherwise it is refused with `recoveryExists`, checked inside the transaction.
    public func createRecoveryKey(replacing: Bool = false) throws -> RecoveryKey {
        let recoveryKey = try RecoveryKey.generate()
        try replaceHighEntropySlot(kind: .recoveryKey, secret: recoveryKey.keyMaterial, uuid: try KeyslotID.random(),
                                   info: KeyHierarchy.recoveryKeyInfo, threshold: nil, shareCount: nil, replacing: replacing) {}
        return recoveryKey
    }

    /// Splits a fresh 256-bit secret into `shares` shares of which any `threshold` unlock the vault,
    /// replacing an earlier split only when `replacing` (else `recoveryExists`). `deliver` runs inside the
    /// transaction (it writes the share files); if it throws, the vault keeps its previous split.
    public func splitRecovery(threshold: Int, shares: Int, replacing: Bool = false, deliver: ([RecoveryShareFile]) throws -> Void) throws {
        let secret = try SecureBytes.random(count: 32)
        let uuid = try KeyslotID.random()
        let files = try Shamir.split(secret, threshold: threshold, shares: shares).map {
            RecoveryShareFile(vaultID: vaultID, keyslotUUID: uuid, threshold: threshold, shareCount: shares, share: $0)
        }
        try replaceHighEntropySlot(kind: .recoveryShares, secret: secret, uuid: uuid, info: KeyHierarchy.recoverySharesInfo,
                                   threshold: threshold, shareCount: shares, replacing: replacing) { try deliver(files) }
    }

    private func replaceHighEntropySlot(kind: Keyslot.Kind, secret: SecureBytes, uuid: KeyslotID, info: [UInt8],
                                        threshold: Int?, shareCount: Int?, replacing: Bool, beforeCommit: () throws -> Void) throws {
        let salt = try SecureRandom.bytes(KeyHierarchy.saltSize)
        let kek = try HKDF.deriveKey(inputKeyMaterial: secret, salt: salt, info: info + vaultID.bytes, outputCount: 32)
        let sealed = try Keyslot.seal(masterKey: masterKey, kek: kek, vaultID: vaultID, uuid: uuid, kind: kind, kdf: .hkdfSHA256)
        let now = VaultClock.system.now()
        try vault.withDatabase { database in
            try database.writeTransaction {
                let existed = try database.queryOne("SELECT id FROM keyslots WHERE kind = ?", [.text(kind.rawValue)]) != nil
                if existed && !replacing {
                    throw CryptoVaultError(.recoveryExists, kind == .recoveryKey
                        ? "this vault already has a recovery key; a new one would replace it and the old key would stop working"
                        : "this vault already has a recovery split; a new one would replace it and the old shares would stop working")
                }
                try database.query("DELETE FROM keyslots WHERE kind = ?", [.text(kind.rawValue)])
                try database.query("""
                    INSERT INTO keyslots (uuid, kind, kdf, salt, nonce, wrapped_key, threshold, share_count, created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, [.blob(uuid.bytes), .text(kind.rawValue), .text(KeyslotKDF.hkdfSHA256.encoded), .blob(salt),
                          .blob(sealed.nonce), .blob(sealed.wrappedKey),
                          threshold.map { .integer(Int64($0)) } ?? .null, shareCount.map { .integer(Int64($0)) } ?? .null,
                          .integer(now), .integer(now)])
                // A replacement is its own action, so an auditor sees without keys that the earlier key or shares stopped working.
                let action: AuditAction = kind == .recoveryKey ? (existed ? .recoveryReplaceKey : .recoveryCreateKey)
                                                               : (existed ? .recoveryReplaceSplit : .recoverySplit)
                try journal(VaultEvent(action, subject: uuid), in: database)
                try beforeCommit()
            }
        }
    }
}
