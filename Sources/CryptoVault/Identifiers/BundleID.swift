/// A bundle's identity: the 16 random bytes chosen when it is sealed, bound into its header, its
/// keys and its wrap (SECURITY.md §6.2), and the name of its file in assets/.
///
/// The bytes cross into a `BundleID` only where they come in (a header parsed, a row read, a wire
/// message decoded) and leave it only where they go out (`bytes`, for SQL and the wire), so a
/// compartment id or a device id can never be passed where a bundle's is meant. Parsing refuses
/// any length but 16 (`.invalidIdentifier`, saying the length found).
public struct BundleID: Hashable, Sendable, CustomStringConvertible {
    public static let size = 16

    /// The 16 bytes, for the SQL and wire boundaries.
    public let bytes: [UInt8]

    /// Exactly `size` bytes; anything else is refused with the length it had.
    public init(bytes: [UInt8]) throws(CryptoVaultError) {
        guard bytes.count == Self.size else {
            throw CryptoVaultError(.invalidIdentifier, "a bundle id is \(Self.size) bytes, not \(bytes.count)")
        }
        self.bytes = bytes
    }

    /// Exactly 32 hex digits (either case); anything else is refused, saying what was wrong.
    public init(hex text: String) throws(CryptoVaultError) {
        try self.init(bytes: try IdentifierHex.bytes(text, size: Self.size, kind: "a bundle id"))
    }

    /// A fresh random id, for a bundle being sealed.
    static func random() throws -> BundleID { try BundleID(bytes: try SecureRandom.bytes(size)) }

    /// Lowercase hex, as logs, `ls` and the CLI show it.
    public var hex: String { ByteEncoding.hex(bytes) }

    public var description: String { hex }
}
