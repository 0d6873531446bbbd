/// A bundle's identity: the 16 random bytes chosen when it is sealed, bound into its header, its
/// keys and its wrap (SECURITY.md §6.2), and the name of its file in assets/.
public typealias BundleID = TypedIdentifier<BundleKind>

public enum BundleKind: IdentifierKind { public static let name = "a bundle id" }
