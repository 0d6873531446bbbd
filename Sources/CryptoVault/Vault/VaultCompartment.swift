import Foundation

/// A compartment: a named group of sealed material with its own keys, one per key version.
public struct VaultCompartment: Sendable, Equatable, Identifiable {
    public let rowID: Int64
    /// Random, chosen at creation; bundles and derived keys are bound to it, not to the name.
    public let id: CompartmentID
    public let name: String
    public let register: Register
    public let isPrivileged: Bool
    public let createdAt: Int64
    public let keyVersions: [KeyVersion]
    /// Set when the compartment belongs to another vault and was shared with this device; nil for
    /// the vault's own compartments.
    public internal(set) var sharing: CompartmentShare? = nil

    public struct KeyVersion: Sendable, Equatable {
        public let version: UInt32
        public let createdAt: Int64
        public let retiredAt: Int64?
        public var isActive: Bool { retiredAt == nil }
    }

    /// The version new material is sealed with: the newest active one.
    public var currentVersion: UInt32? { keyVersions.filter(\.isActive).map(\.version).max() }

    /// The subject id of a `compartment.rotate` or `compartment.retire` audit entry: the key version
    /// it added or retired, as 4 bytes big-endian (SECURITY.md §8.1). Not secret: `compartment_keys`
    /// shows the versions to anyone holding the file.
    public static func keyVersionSubject(_ version: UInt32) -> [UInt8] {
        [UInt8(version >> 24), UInt8(version >> 16 & 0xFF), UInt8(version >> 8 & 0xFF), UInt8(version & 0xFF)]
    }

    /// Names are compared in Unicode NFC, so "Café" typed on any keyboard names one compartment.
    static func normalized(_ name: String) -> String {
        name.precomposedStringWithCanonicalMapping
    }

    /// Names are what people type: 1 to 128 bytes of UTF-8, no control characters, no edge spaces.
    static func validate(name: String) throws {
        let bytes = name.utf8.count
        guard bytes >= 1, bytes <= 128 else {
            throw CryptoVaultError(.invalidName, "a compartment name must be 1 to 128 bytes long")
        }
        guard !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }),
              name.trimmingWhitespace() == name else {
            throw CryptoVaultError(.invalidName, "a compartment name may not contain control characters or start or end with a space")
        }
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars = scalars.dropFirst() }
        while let last = scalars.last, last.isWhitespace { scalars = scalars.dropLast() }
        return String(scalars)
    }
}
