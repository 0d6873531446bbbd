/// What a `TypedIdentifier` names: a marker type per kind of id, so a compartment's id can never be
/// passed where a bundle's, a device's or a vault's is meant (the compiler refuses it).
public protocol IdentifierKind: Sendable {
    /// How the id is named in refusals ("a bundle id").
    static var name: String { get }
}

/// One of the vault's 16-byte ids (`VaultID`, `BundleID`, `CompartmentID`, `DeviceID`, `AuditDeviceID`,
/// `KeyslotID`, and the writing model's `WritingID`s), typed by
/// what it names. The bytes become an id where they come in (a header or message parsed, a row
/// read) and leave it (`bytes`) only where they go out (SQL, wire, key derivations, associated
/// data), so every format stays byte for byte what it was. Parsing refuses any length but 16
/// (`.invalidIdentifier`, saying the length it had).
public struct TypedIdentifier<Kind: IdentifierKind>: Hashable, Sendable, CustomStringConvertible {
    public static var size: Int { 16 }

    /// The 16 bytes, for the SQL, wire and format boundaries.
    public let bytes: [UInt8]

    /// Exactly `size` bytes; anything else is refused with the length it had.
    public init(bytes: [UInt8]) throws(CryptoVaultError) {
        guard bytes.count == Self.size else {
            throw CryptoVaultError(.invalidIdentifier, "\(Kind.name) is \(Self.size) bytes, not \(bytes.count)")
        }
        self.bytes = bytes
    }

    /// Exactly 32 hex digits (either case); anything else is refused, saying what was wrong.
    public init(hex text: String) throws(CryptoVaultError) {
        try self.init(bytes: try IdentifierHex.bytes(text, size: Self.size, kind: Kind.name))
    }

    /// A fresh random id, for a vault, bundle, compartment or writing record being made.
    public static func random() throws -> Self { try Self(bytes: try SecureRandom.bytes(size)) }

    /// Lowercase hex, as logs, `ls` and the CLI show it.
    public var hex: String { ByteEncoding.hex(bytes) }

    public var description: String { hex }
}
