/// A vault's identity: the 16 random bytes chosen when it is created (vault_meta 'vault_id'),
/// bound into every key derivation, keyslot, bundle header and backup of that vault.
///
/// Like `BundleID`, the bytes become a `VaultID` where they come in and leave it (`bytes`) only at
/// the SQL, wire and file-format boundaries, so another 16-byte id can never be passed where a
/// vault's is meant. Parsing refuses any length but 16 (`.invalidIdentifier`, saying the length found).
public struct VaultID: Hashable, Sendable, CustomStringConvertible {
    public static let size = 16

    /// The 16 bytes, for the SQL, wire and format boundaries.
    public let bytes: [UInt8]

    /// Exactly `size` bytes; anything else is refused with the length it had.
    public init(bytes: [UInt8]) throws(CryptoVaultError) {
        guard bytes.count == Self.size else {
            throw CryptoVaultError(.invalidIdentifier, "a vault id is \(Self.size) bytes, not \(bytes.count)")
        }
        self.bytes = bytes
    }

    /// Exactly 32 hex digits (either case); anything else is refused, saying what was wrong.
    public init(hex text: String) throws(CryptoVaultError) {
        try self.init(bytes: try IdentifierHex.bytes(text, size: Self.size, kind: "a vault id"))
    }

    /// Lowercase hex, as logs, backup summaries and the CLI show it.
    public var hex: String { ByteEncoding.hex(bytes) }

    public var description: String { hex }
}
