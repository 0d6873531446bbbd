/// What a person presents to unlock the vault.
public enum UnlockCredential: Sendable {
    case passphrase(SecureBytes)
    case recoveryKey(RecoveryKey)
    case recoveryShares([RecoveryShareFile])
}

extension Vault {
    /// Unlocks the vault with `credential`, or throws `.wrongPassphrase` / `.wrongRecoveryKey`.
    ///
    /// Every slot of the matching kind is tried, even after one succeeds, so the time taken does not
    /// reveal which slot (or whether an early one) matched. A passphrase slot whose KDF parameters are
    /// weaker than the vault's authenticated policy in some parameter is re-wrapped with the larger of
    /// each (`KDFParameters.upgraded(toward:)`).
    /// Every attempt is recorded: a success as `vault.unlock` (with the slot used), a failure as
    /// `vault.unlock-failed`.
    ///
    /// A keyslot row that cannot be read is skipped and named in `unlockWarnings`; so is a KDF policy
    /// that fails its MAC or is malformed (no slot is upgraded then). A vault made before schema 12 has
    /// its metadata bound on its first unlock (`bindMetadataIfNeeded`).
    public func unlock(with credential: UnlockCredential) throws -> UnlockedVault {
        do {
            let unlocked = try unlockUnrecorded(with: credential)
            unlocked.unlockWarnings += try readableKeyslots().refusals.map { "\($0.message); skipped" }
            try unlocked.bindMetadataIfNeeded()
            if case .passphrase(let passphrase) = credential,
               let opened = unlocked.passphraseSlotsAtUnlock?.first(where: { $0.id == unlocked.unlockedSlotID }) {
                try unlocked.upgradeIfWeak(opened, passphrase: passphrase)
            }
            let slot = try readableKeyslots().slots.first { $0.id == unlocked.unlockedSlotID }
            try unlocked.record(VaultEvent(.vaultUnlock, subjectID: slot?.uuid.bytes))
            return unlocked
        } catch let error as CryptoVaultError where Self.isFailedAttempt(error) {
            try recordAlone(VaultEvent(.vaultUnlockFailed), keys: nil)
            throw error
        }
    }

    private static func isFailedAttempt(_ error: CryptoVaultError) -> Bool {
        [.wrongPassphrase, .wrongRecoveryKey, .insufficientShares, .invalidShare, .kdfParametersOutOfRange].contains(error.code)
    }

    private func unlockUnrecorded(with credential: UnlockCredential) throws -> UnlockedVault {
        let (slots, refusals) = try readableKeyslots()
        switch credential {
        case .passphrase(let passphrase):
            let (slot, masterKey) = try firstOpened(slots.filter { $0.kind == .passphrase }) { slot in
                try kek(forPassphrase: passphrase, slot: slot)
            }
            guard let slot, let masterKey else {
                throw Self.failure(refusals, otherwise: CryptoVaultError(.wrongPassphrase, "wrong passphrase"))
            }
            return UnlockedVault(vault: self, masterKey: masterKey, unlockedSlotID: slot.id,
                                 passphraseSlotsAtUnlock: slots.filter { $0.kind == .passphrase })
        case .recoveryKey(let recoveryKey):
            let (slot, masterKey) = try firstOpened(slots.filter { $0.kind == .recoveryKey }) { slot in
                try Self.kek(forHighEntropySecret: recoveryKey.keyMaterial, slot: slot, vaultID: vaultID,
                             info: KeyHierarchy.recoveryKeyInfo)
            }
            guard let slot, let masterKey else {
                throw Self.failure(refusals, otherwise: CryptoVaultError(.wrongRecoveryKey, "the recovery key does not unlock this vault"))
            }
            return UnlockedVault(vault: self, masterKey: masterKey, unlockedSlotID: slot.id,
                                 passphraseSlotsAtUnlock: slots.filter { $0.kind == .passphrase })
        case .recoveryShares(let shares):
            return try unlock(withShares: shares, slots: slots, refusals: refusals)
        }
    }

    private func unlock(withShares shares: [RecoveryShareFile], slots: [Keyslot], refusals: [CryptoVaultError]) throws -> UnlockedVault {
        let secret = try RecoveryShareFile.combine(shares, vaultID: vaultID)
        guard let slot = slots.first(where: { $0.kind == .recoveryShares && $0.uuid == shares[0].keyslotUUID }) else {
            throw Self.failure(refusals, otherwise: CryptoVaultError(.wrongRecoveryKey,
                "these shares belong to a recovery split that no longer exists in this vault"))
        }
        guard slot.threshold == shares[0].threshold, slot.shareCount == shares[0].shareCount else {
            throw CryptoVaultError(.invalidShare, "the shares say \(shares[0].threshold) of \(shares[0].shareCount), their keyslot disagrees")
        }
        let kek = try Self.kek(forHighEntropySecret: secret, slot: slot, vaultID: vaultID, info: KeyHierarchy.recoverySharesInfo)
        guard let masterKey = try? slot.unwrap(with: kek, vaultID: vaultID) else {
            throw CryptoVaultError(.wrongRecoveryKey, "the shares do not unlock this vault (one may be altered)")
        }
        return UnlockedVault(vault: self, masterKey: masterKey, unlockedSlotID: slot.id,
                             passphraseSlotsAtUnlock: slots.filter { $0.kind == .passphrase })
    }

    /// When nothing opened: a refused slot's reason if there was one (the credential may well be for
    /// that slot), else the plain "wrong credential" error.
    private static func failure(_ refusals: [CryptoVaultError], otherwise wrongCredential: CryptoVaultError) -> CryptoVaultError {
        guard let refusal = refusals.first else { return wrongCredential }
        return CryptoVaultError(refusal.code, "\(refusal.message); no other keyslot accepted the credential")
    }

    /// Tries every slot in id order (no early exit) and returns the first that opened.
    func firstOpened(_ slots: [Keyslot], kek: (Keyslot) throws -> SecureBytes) throws -> (Keyslot?, SecureBytes?) {
        var opened: (Keyslot, SecureBytes)?
        for slot in slots {
            let key = try kek(slot)
            if let masterKey = try? slot.unwrap(with: key, vaultID: vaultID), opened == nil {
                opened = (slot, masterKey)
            }
        }
        return (opened?.0, opened?.1)
    }

    func kek(forPassphrase passphrase: SecureBytes, slot: Keyslot) throws -> SecureBytes {
        guard case .passwordHash(let parameters) = slot.kdf else {
            throw CryptoVaultError(.corruptVault, "the vault database is damaged: passphrase slot \(slot.id) has no password hash")
        }
        // Bounds were checked when the row was read; KDFScheme checks them again before allocating.
        return try KeyHierarchy.passphraseKEK(passphrase, salt: slot.salt, parameters: parameters, vaultID: vaultID)
    }

    static func kek(forHighEntropySecret secret: SecureBytes, slot: Keyslot, vaultID: VaultID, info: [UInt8]) throws -> SecureBytes {
        guard slot.kdf == .hkdfSHA256 else {
            throw CryptoVaultError(.corruptVault, "the vault database is damaged: recovery slot \(slot.id) has the wrong KDF")
        }
        return try HKDF.deriveKey(inputKeyMaterial: secret, salt: slot.salt, info: info + vaultID.bytes, outputCount: 32)
    }
}
