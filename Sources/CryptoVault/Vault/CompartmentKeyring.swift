import Synchronization

/// The keys of one privileged compartment, held for a privileged processing session.
///
/// Reading a privileged compartment must happen inside a session that the audit log accounts for, so
/// `UnlockedVault` never uses a privileged compartment's keys to open a bundle by itself: opening one
/// without a keyring fails with `.privilegedSessionRequired`. A keyring is made only by
/// `UnlockedVault.privilegedKeyring(for:)`, which is `package`: the PrivilegedSession module (which
/// records the session) can call it, a program using the library cannot. Bypassing the session is
/// therefore not merely forbidden, it is not expressible through the public API.
///
/// `wipe()` releases every key (SecureBytes zero their memory when freed); after it, any use fails.
public final class CompartmentKeyring: Sendable {
    public let compartment: VaultCompartment
    private let keys: Mutex<[UInt32: SecureBytes]?>

    init(compartment: VaultCompartment, keys: [UInt32: SecureBytes]) {
        self.compartment = compartment
        self.keys = Mutex(keys)
    }

    /// Whether the keys are still held (false once wiped).
    public var isHoldingKeys: Bool { keys.withLock { $0 != nil } }

    /// Releases the keys; every later use of this keyring fails.
    public func wipe() { keys.withLock { $0 = nil } }

    /// The key of `version`, for the bundle code. Fails if the keyring was wiped or lacks the version.
    func key(version: UInt32) throws -> SecureBytes {
        try keys.withLock { held in
            guard let held else {
                throw CryptoVaultError(.privilegedSessionRequired, "the session's keys for '\(compartment.name)' were wiped (it ended or expired)")
            }
            guard let key = held[version] else {
                throw CryptoVaultError(.unknownKeyVersion, "compartment '\(compartment.name)' has no active key version \(version)")
            }
            return key
        }
    }
}

extension UnlockedVault {
    /// A keyring with every active key version of `compartment`. For the PrivilegedSession module
    /// only, which records the session that holds it (see `CompartmentKeyring`).
    package func privilegedKeyring(for compartment: VaultCompartment) throws -> CompartmentKeyring {
        // The caller's copy may predate a rotation or a retirement: the database says what is active.
        let current = try self.compartment(withID: compartment.id)
        var keys: [UInt32: SecureBytes] = [:]
        for version in current.keyVersions where version.isActive {
            keys[version.version] = try compartmentKey(for: current, version: version.version)
        }
        return CompartmentKeyring(compartment: current, keys: keys)
    }
}

/// Whose compartment keys may unwrap a bundle's data key.
enum CompartmentKeyAccess {
    /// The vault's own keys: any non-privileged compartment; a privileged one is refused.
    case vault
    /// A session's keyring: its compartment only.
    case keyring(CompartmentKeyring)
    /// Work inside CryptoVault that never releases plaintext or metadata (rewrapping a header).
    case maintenance

    func key(for compartment: VaultCompartment, version: UInt32, vault: UnlockedVault) throws -> SecureBytes {
        try authorize(compartment)
        switch self {
        case .maintenance, .vault: return try vault.compartmentKey(for: compartment, version: version)
        case .keyring(let keyring): return try keyring.key(version: version)
        }
    }

    /// `key(for:version:vault:)` inside a transaction the caller holds on `database` (sealed records).
    func key(for compartment: VaultCompartment, version: UInt32, vault: UnlockedVault, in database: Database) throws -> SecureBytes {
        try authorize(compartment)
        switch self {
        case .maintenance, .vault: return try vault.compartmentKey(for: compartment, version: version, in: database)
        case .keyring(let keyring): return try keyring.key(version: version)
        }
    }

    /// The record keys (§4.8) of `compartment` at `version` inside the caller's transaction: the
    /// vault's kept ones for the version's salt, or those of the session's compartment key.
    func recordKeys(for compartment: VaultCompartment, version: UInt32, vault: UnlockedVault, in database: Database) throws -> RecordKeys {
        try authorize(compartment)
        switch self {
        case .maintenance, .vault: return try vault.recordKeys(for: compartment, version: version, in: database)
        case .keyring(let keyring): return try RecordKeys(compartmentKey: try keyring.key(version: version))
        }
    }

    /// The privileged rule alone, without deriving a key: whether this access may read `compartment`
    /// (sealed records check it again before using a key they derived earlier in the transaction).
    func authorize(_ compartment: VaultCompartment) throws {
        switch self {
        case .maintenance:
            return
        case .vault:
            guard !compartment.isPrivileged else {
                throw CryptoVaultError(.privilegedSessionRequired,
                                       "compartment '\(compartment.name)' is privileged: it can only be read inside a privileged processing session")
            }
        case .keyring(let keyring):
            guard keyring.compartment.id == compartment.id else {
                throw CryptoVaultError(.privilegedSessionRequired,
                                       "this belongs to '\(compartment.name)', not to the session's compartment '\(keyring.compartment.name)'")
            }
            guard keyring.isHoldingKeys else {
                throw CryptoVaultError(.privilegedSessionRequired, "the session's keys for '\(compartment.name)' were wiped (it ended or expired)")
            }
        }
    }
}
