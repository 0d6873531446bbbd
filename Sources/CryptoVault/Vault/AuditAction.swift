/// What an audit entry says happened, such as `bundle.put`: a typed value rather than a string
/// literal at each call site, so the log's vocabulary is declared in one place per module (an
/// extension of this type in each module that records events) and a typo cannot invent an action.
///
/// The name is what the log stores and what auditors filter on (SECURITY.md §8): changing one is a
/// format change, so the names below never change once released.
public struct AuditAction: Sendable, Hashable, CustomStringConvertible {
    public let name: String

    /// A module declares its actions with this, in its own `extension AuditAction`.
    public init(_ name: String) { self.name = name }

    public var description: String { name }
}

/// The actions CryptoVault records: the vault, its keyslots, compartments, bundles and devices.
extension AuditAction {
    public static let vaultInit = AuditAction("vault.init")
    public static let vaultUnlock = AuditAction("vault.unlock")
    public static let vaultUnlockFailed = AuditAction("vault.unlock-failed")
    /// A vault made before migration 12 bound to the master key, once (SECURITY.md §4.6).
    public static let vaultBindMetadata = AuditAction("vault.bind-metadata")
    /// The KDF policy set, with its MAC under the master key.
    public static let vaultKDFPolicy = AuditAction("vault.kdf-policy")
    /// The database rewritten without its free space (`vaultctl compact`, SECURITY.md §4.9); the
    /// subject holds its size before and after, in clear.
    public static let vaultCompact = AuditAction("vault.compact")
    /// A schema migration, recorded in the transaction that ran it.
    public static let vaultUpgrade = AuditAction("vault.upgrade")
    /// A vault made before encrypted backups given its backup key, once (SECURITY.md §13.1).
    public static let backupKeyCreate = AuditAction("backup.key-create")

    public static let keyslotUpgrade = AuditAction("keyslot.upgrade")
    public static let keyslotPasswd = AuditAction("keyslot.passwd")
    public static let keyslotPasswdReplace = AuditAction("keyslot.passwd-replace")
    public static let recoveryCreateKey = AuditAction("recovery.create-key")
    public static let recoverySplit = AuditAction("recovery.split")
    public static let recoveryReplaceKey = AuditAction("recovery.replace-key")
    public static let recoveryReplaceSplit = AuditAction("recovery.replace-split")

    public static let compartmentCreate = AuditAction("compartment.create")
    /// A compartment of a vault made before migration 12 bound to the master key, once.
    public static let compartmentBind = AuditAction("compartment.bind")
    public static let compartmentRotate = AuditAction("compartment.rotate")
    public static let compartmentRetire = AuditAction("compartment.retire")
    public static let compartmentDestroy = AuditAction("compartment.destroy")
    /// `vaultctl repair` wrote a compartment's row again from its binding (`CompartmentRowMend`;
    /// compartment: the id found; details: the columns written).
    public static let compartmentRowMended = AuditAction("compartment.row-mended")
    /// `vaultctl repair` renumbered a compartment's key version row (`CompartmentKeyVersionMend`;
    /// details: `from`, `to`).
    public static let compartmentKeyVersionMended = AuditAction("compartment.key-version-mended")

    public static let bundleSeal = AuditAction("bundle.seal")
    public static let bundleOpen = AuditAction("bundle.open")
    public static let bundlePut = AuditAction("bundle.put")
    public static let bundleGet = AuditAction("bundle.get")
    public static let bundleRm = AuditAction("bundle.rm")
    public static let bundleRewrap = AuditAction("bundle.rewrap")
    /// A lost or damaged bundle file put back from a paired device's replica (SECURITY.md §9.13).
    public static let bundleRestore = AuditAction("bundle.restore")
    /// A sealed file in assets/ with no row, moved aside into quarantine/ (SECURITY.md §7).
    public static let bundleQuarantine = AuditAction("bundle.quarantine")

    /// A value sealed into a sealed record (SECURITY.md §4.8), one entry per record.
    public static let recordSeal = AuditAction("record.seal")
    /// Sealed records opened: one entry per call and compartment, naming up to 64 records.
    public static let recordOpen = AuditAction("record.open")
    /// A sealed record re-sealed under its compartment's current key version.
    public static let recordRewrap = AuditAction("record.rewrap")
    public static let recordRm = AuditAction("record.rm")
    /// `vaultctl repair` wrote a sealed record's `key_version` column again from its authenticated
    /// header (`SealedRecordKeyVersionMend`; subject: the record id; details: table, field, from, to).
    public static let recordKeyVersionMended = AuditAction("record.key-version-mended")

    public static let deviceCreate = AuditAction("device.create")
    /// This device, or the name this vault keeps for a paired one, renamed (`vaultctl device rename`).
    public static let deviceRename = AuditAction("device.rename")
    public static let peerPair = AuditAction("peer.pair")
    public static let peerPairFailed = AuditAction("peer.pair-failed")
    public static let peerRevoke = AuditAction("peer.revoke")
    /// A paired device's trust level set or changed (`DeviceTrust`; details: the level, the previous
    /// one, "none" or "damaged", and whether it was chosen at pairing).
    public static let peerTrust = AuditAction("peer.trust")
    public static let shareReceive = AuditAction("share.receive")
}
