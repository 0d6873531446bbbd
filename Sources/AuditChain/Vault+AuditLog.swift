import CryptoVault

/// How a caller outside this package opens or creates a vault: always with the audit log as its
/// journal. `VaultJournal` is not public, so no library caller can give a vault a journal that
/// records nothing (issue 12's review); vaultctl and the appliance pass `AuditLog()` the same way.
extension Vault {
    public static func open(at directory: String, upgrade: Bool = true, modules: [ModuleSchema] = []) throws -> Vault {
        try open(at: directory, journal: AuditLog(), upgrade: upgrade, modules: modules)
    }

    public static func create(at directory: String, passphrase: SecureBytes, kdf: KDFParameters,
                              modules: [ModuleSchema] = []) throws -> UnlockedVault {
        try create(at: directory, passphrase: passphrase, kdf: kdf, journal: AuditLog(), modules: modules)
    }
}
