internal import CSodium

/// A recovery key: 160 random bits, shown once, typed back by a person when every passphrase is lost.
///
/// Display grammar (Crockford base32, most significant bit first):
///
///     recovery-key = group 5("-" group)           ; 36 symbols in 6 groups of 6
///     group        = 6symbol
///     symbol       = 0-9 / A-H / J / K / M / N / P-T / V-Z
///
/// The first 32 symbols are the 160 key bits; the last 4 are a 20-bit checksum, the first 20 bits of
/// SHA-256("vaultctl recovery key v1" || key). The checksum catches typing mistakes before an unlock
/// attempt, and says so, instead of reporting a wrong key. It is a hash, so a given mistake slips through
/// with probability 2^-20 (it does not guarantee detection the way a BCH code would).
public struct RecoveryKey: Sendable {
    /// The 20 key bytes; the vault derives the slot's wrapping key from them with HKDF.
    public let keyMaterial: SecureBytes

    static let keyCount = 20
    static let keySymbolCount = 32
    static let symbolCount = 36
    static let groupSize = 6
    static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)
    static let checksumDomain = Array("vaultctl recovery key v1".utf8)

    /// A fresh key from the operating system's CSPRNG.
    public static func generate() throws -> RecoveryKey {
        try RecoveryKey(keyMaterial: SecureBytes.random(count: keyCount))
    }

    init(keyMaterial: SecureBytes) throws {
        guard keyMaterial.count == Self.keyCount else {
            throw CryptoVaultError(.invalidRecoveryKey, "a recovery key holds 20 bytes, got \(keyMaterial.count)")
        }
        self.keyMaterial = keyMaterial
    }

    /// Parses a key as a person types it: any case; '-' and spaces anywhere and one trailing newline are
    /// ignored; I and L read as 1, O as 0 (Crockford's aliases). Anything else is refused, and error
    /// messages name a position, never the key.
    public init(parsing text: String) throws {
        try self.init(symbols: try Self.symbolValues(of: text))
    }

    /// The same grammar, read from bytes in locked memory (a key file read with `SecretInput`), so the
    /// typed key never passes through an ordinary String. Bytes outside ASCII are refused.
    public init(parsing typed: SecureBytes) throws {
        try self.init(symbols: try typed.withUnsafeBytes { try Self.symbolValues(ofBytes: $0) })
    }

    private init(symbols: SecureBytes) throws {
        let key = try Self.unpackKey(symbols)
        let typedChecksum = symbols.withUnsafeBytes { values in
            (Self.keySymbolCount..<Self.symbolCount).reduce(UInt32(0)) { $0 << 5 | UInt32(values[$1]) }
        }
        guard typedChecksum == Self.checksum(of: key) else {
            throw CryptoVaultError(.invalidRecoveryKey, "checksum does not match: a character is mistyped")
        }
        keyMaterial = key
    }

    /// The grouped form, e.g. `7K3M0Q-...`. This IS the secret: print it once and let it go.
    public var displayString: String {
        var symbols = Self.keySymbols(keyMaterial)
        let checksum = Self.checksum(of: keyMaterial)
        symbols += [15, 10, 5, 0].map { Int(checksum >> UInt32($0) & 31) }
        var text = ""
        for (position, value) in symbols.enumerated() {
            if position > 0, position % Self.groupSize == 0 { text.append("-") }
            text.append(Character(Unicode.Scalar(Self.alphabet[value])))
        }
        return text
    }
}

// MARK: - Parsing

extension RecoveryKey {
    /// The 5-bit value of each symbol, in locked memory. Separators are skipped; the first offending
    /// character is reported with its 1-based position in `text`, and only then the length is checked.
    private static func symbolValues(of text: String) throws -> SecureBytes {
        let values = try SecureBytes(count: symbolCount)
        var count = 0
        for (offset, character) in withoutTrailingNewline(text).enumerated() where character != "-" && character != " " {
            guard let value = symbolValue(character) else {
                throw CryptoVaultError(
                    .invalidRecoveryKey, "unexpected character \(shown(character)) at position \(offset + 1)")
            }
            if count < symbolCount {
                values.withUnsafeMutableBytes { $0[count] = value }
            }
            count += 1
        }
        guard count == symbolCount else {
            throw CryptoVaultError(.invalidRecoveryKey, "a recovery key has \(symbolCount) characters, got \(count)")
        }
        return values
    }

    private static func symbolValues(ofBytes typed: UnsafeRawBufferPointer) throws -> SecureBytes {
        var end = typed.count
        if end > 0, typed[end - 1] == 0x0a { end -= 1 }
        if end > 0, typed[end - 1] == 0x0d { end -= 1 }
        let values = try SecureBytes(count: symbolCount)
        var count = 0
        for offset in 0..<end where typed[offset] != UInt8(ascii: "-") && typed[offset] != UInt8(ascii: " ") {
            let byte = typed[offset]
            guard byte < 0x80, let value = symbolValue(Character(Unicode.Scalar(byte))) else {
                let shown = (0x21...0x7e).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x" + String(byte, radix: 16)
                throw CryptoVaultError(.invalidRecoveryKey, "unexpected character \(shown) at position \(offset + 1)")
            }
            if count < symbolCount { values.withUnsafeMutableBytes { $0[count] = value } }
            count += 1
        }
        guard count == symbolCount else {
            throw CryptoVaultError(.invalidRecoveryKey, "a recovery key has \(symbolCount) characters, got \(count)")
        }
        return values
    }

    private static func withoutTrailingNewline(_ text: String) -> Substring {
        // "\r\n" is a single Character in Swift, so both line endings are one `last`.
        if let last = text.last, last == "\n" || last == "\r\n" { return text.dropLast() }
        return text[...]
    }

    /// Crockford decoding, case-insensitive, with I/L → 1 and O → 0. The typed text already lives in an
    /// ordinary String, so a table-free constant-time decode here would protect nothing.
    private static func symbolValue(_ character: Character) -> UInt8? {
        guard let ascii = character.asciiValue else { return nil }
        let upper = (0x61...0x7a).contains(ascii) ? ascii - 0x20 : ascii
        switch upper {
        case UInt8(ascii: "I"), UInt8(ascii: "L"): return 1
        case UInt8(ascii: "O"): return 0
        default: return alphabet.firstIndex(of: upper).map(UInt8.init)
        }
    }

    /// A rejected character for an error message: itself when printable ASCII, else its code point.
    private static func shown(_ character: Character) -> String {
        if let ascii = character.asciiValue, (0x21...0x7e).contains(ascii) { return "'\(character)'" }
        let scalar = character.unicodeScalars.first?.value ?? 0
        return "U+" + String(scalar, radix: 16, uppercase: true)
    }

    /// The first 32 symbols, 5 bits each, repacked into 20 bytes.
    private static func unpackKey(_ symbols: SecureBytes) throws -> SecureBytes {
        let key = try SecureBytes(count: keyCount)
        key.withUnsafeMutableBytes { output in
            symbols.withUnsafeBytes { values in
                var buffer: UInt32 = 0
                var bits = 0
                var written = 0
                for position in 0..<keySymbolCount {
                    buffer = buffer << 5 | UInt32(values[position])
                    bits += 5
                    if bits >= 8 {
                        bits -= 8
                        output[written] = UInt8(truncatingIfNeeded: buffer >> UInt32(bits))
                        written += 1
                    }
                }
            }
        }
        return key
    }
}

// MARK: - Encoding and checksum

extension RecoveryKey {
    /// 20 bytes → 32 symbol values (160 bits, no padding).
    private static func keySymbols(_ key: SecureBytes) -> [Int] {
        key.withUnsafeBytes { bytes in
            var symbols: [Int] = []
            var buffer: UInt32 = 0
            var bits = 0
            for byte in bytes {
                buffer = buffer << 8 | UInt32(byte)
                bits += 8
                while bits >= 5 {
                    bits -= 5
                    symbols.append(Int(buffer >> UInt32(bits) & 31))
                }
            }
            return symbols
        }
    }

    /// The first 20 bits of SHA-256(domain || key). Hashed with libsodium straight from locked memory
    /// so the key is never copied into an ordinary array; the hash state is wiped afterwards.
    static func checksum(of key: SecureBytes) -> UInt32 {
        var state = crypto_hash_sha256_state()
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        crypto_hash_sha256_init(&state)
        checksumDomain.withUnsafeBufferPointer { domain in
            _ = crypto_hash_sha256_update(&state, domain.baseAddress, UInt64(domain.count))
        }
        key.withUnsafeBytes { bytes in
            _ = crypto_hash_sha256_update(&state, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(bytes.count))
        }
        crypto_hash_sha256_final(&state, &digest)
        let checksum = UInt32(digest[0]) << 12 | UInt32(digest[1]) << 4 | UInt32(digest[2]) >> 4
        sodium_memzero(&state, MemoryLayout<crypto_hash_sha256_state>.size)
        sodium_memzero(&digest, digest.count)
        return checksum
    }
}
