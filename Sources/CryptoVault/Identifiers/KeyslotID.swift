/// A keyslot's identity: the 16 random bytes chosen when the slot is made (keyslots 'uuid'), bound
/// into the associated data of its wrapped master key (SECURITY.md §4.2), named by a recovery share
/// file's `keyslot:` line and by the subject of the unlock and keyslot audit entries.
public typealias KeyslotID = TypedIdentifier<KeyslotKind>

public enum KeyslotKind: IdentifierKind { public static let name = "a keyslot id" }
