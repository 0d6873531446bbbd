/// A vault's identity: the 16 random bytes chosen when it is created (vault_meta 'vault_id'),
/// bound into every key derivation, keyslot, bundle header and backup of that vault.
public typealias VaultID = TypedIdentifier<VaultKind>

public enum VaultKind: IdentifierKind { public static let name = "a vault id" }
