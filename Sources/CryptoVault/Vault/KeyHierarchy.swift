/// Every key the vault derives, and the labels that keep derivations apart.
///
///     passphrase ──KDF(argon2id|scrypt)──┐
///     recovery key ──HKDF──────────────┼─► keyslot KEK ──XChaCha20-Poly1305──► master key (random, 256 bits)
///     k-of-n shares ─► secret ─HKDF────┘
///     master key ──HKDF(salt = vault id, "names", 64)────────────► name lookup key || name sealing key
///     master key ──HKDF(salt = per-version random salt, compartment, version)──► compartment key
///
/// Domain-separation labels are ASCII and never reused across purposes. SECURITY.md lists them.
enum KeyHierarchy {
    static let keyslotAssociatedData = Array("vaultctl keyslot v1".utf8)
    static let passphraseAssociatedData = Array("vaultctl passphrase v1".utf8)
    static let recoveryKeyInfo = Array("vaultctl recovery-key keyslot v1".utf8)
    static let recoverySharesInfo = Array("vaultctl recovery-shares keyslot v1".utf8)
    static let compartmentNameInfo = Array("vaultctl compartment names v1".utf8)
    static let compartmentKeyInfo = Array("vaultctl compartment key v1".utf8)

    static let masterKeySize = 32
    static let saltSize = 16

    /// A passphrase slot's KEK. Argon2id also binds the vault id as associated data (RFC 9106's X), so
    /// a KEK computed for one vault is useless for another; scrypt has no such input and relies on the
    /// keyslot's AEAD associated data alone. `deriveKey` validates the parameters before allocating.
    static func passphraseKEK(_ passphrase: SecureBytes, salt: [UInt8], parameters: KDFParameters,
                              vaultID: VaultID) throws -> SecureBytes {
        let associatedData = parameters.algorithm == .argon2id ? passphraseAssociatedData + vaultID.bytes : []
        return try KDFScheme.deriveKey(from: passphrase, salt: salt, parameters: parameters, associatedData: associatedData)
    }

    /// The key of one compartment version. The random per-version salt is what `destroy` shreds:
    /// without it the key cannot be derived again, even by someone who kept the master key.
    static func compartmentKey(masterKey: SecureBytes, vaultID: VaultID, compartmentID: CompartmentID,
                               version: UInt32, salt: [UInt8]) throws -> SecureBytes {
        let info = compartmentKeyInfo + vaultID.bytes + compartmentID.bytes + ByteEncoding.bigEndian(version)
        return try HKDF.deriveKey(inputKeyMaterial: masterKey, salt: salt, info: info, outputCount: 32)
    }
}

/// Fixed-width integer and hex encodings used in labels and files.
package enum ByteEncoding {
    package static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24 & 0xff), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)]
    }

    package static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var characters: [UInt8] = []
        characters.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            characters.append(digits[Int(byte >> 4)])
            characters.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: characters, as: UTF8.self)
    }

    /// Strict lowercase hex: an even number of [0-9a-f] characters, nothing else.
    package static func bytes(fromHex text: Substring) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(characters.count / 2)
        var index = 0
        while index < characters.count {
            guard let high = nibble(characters[index]), let low = nibble(characters[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return character - UInt8(ascii: "a") + 10
        default: return nil
        }
    }
}
