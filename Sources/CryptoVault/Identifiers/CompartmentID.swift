/// A compartment's identity: the 16 random bytes chosen when it is created (compartments 'uuid'),
/// bound into its keys, its sealed name, its binding MAC and the header of every bundle sealed to
/// it. People name a compartment by its name; the library and the formats name it by this id.
public typealias CompartmentID = TypedIdentifier<CompartmentKind>

public enum CompartmentKind: IdentifierKind { public static let name = "a compartment id" }
