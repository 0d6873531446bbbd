import CryptoVault

/// The one-time code a person reads on the host and types on the joining device (SECURITY.md §9.7):
/// 10 symbols of Crockford's base32 (0-9 and A-Z without I, L, O, U), 50 bits from the CSPRNG, shown
/// as two groups of five ("7KQ2M-X9D4R"). Typing is forgiving as Crockford intends: case is ignored,
/// I and L read as 1, O as 0, and hyphens and spaces are skipped; anything else is refused.
///
/// The canonical 10 upper-case symbols, without the hyphen, are CPace's PRS. They live only in
/// `SecureBytes`; the code never crosses the network.
public struct PairingCode: Sendable {
    public static let symbolCount = 10
    /// 5 bits per symbol.
    public static let entropyBits = symbolCount * 5
    static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)

    /// The canonical symbols: CPace's password-related string.
    public let canonicalBytes: SecureBytes

    init(canonicalBytes: SecureBytes) {
        self.canonicalBytes = canonicalBytes
    }

    /// A fresh code. Each symbol is a random byte's low 5 bits: 256 is a multiple of 32, so every
    /// symbol is uniform and independent.
    public static func generate() throws(PeerChannelError) -> PairingCode {
        try PeerChannelError.wrappingPrimitives {
            let random = try SecureBytes.random(count: symbolCount)
            let canonical = try SecureBytes(count: symbolCount)
            random.withUnsafeBytes { random in
                canonical.withUnsafeMutableBytes { canonical in
                    for index in 0..<symbolCount { canonical[index] = alphabet[Int(random[index] & 0x1f)] }
                }
            }
            return PairingCode(canonicalBytes: canonical)
        }
    }

    /// The code as a person typed it. The message of a refusal never repeats what was typed.
    public init(parsing typed: SecureBytes) throws(PeerChannelError) {
        let canonical = try PeerChannelError.wrappingPrimitives { try SecureBytes(count: Self.symbolCount) }
        let count = typed.withUnsafeBytes { typed in
            canonical.withUnsafeMutableBytes { canonical in Self.canonicalize(typed, into: canonical) }
        }
        guard count == Self.symbolCount else {
            throw PeerChannelError(.invalidPairingCode,
                                   "a pairing code is \(Self.symbolCount) letters and digits, like 7KQ2M-X9D4R (without I, L, O or U)")
        }
        self.canonicalBytes = canonical
    }

    /// Writes the canonical symbols of `typed` into `output`; returns how many there were, or -1 on
    /// a character that is not part of a code.
    private static func canonicalize(_ typed: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Int {
        var count = 0
        for byte in typed {
            if byte == UInt8(ascii: "-") || byte == UInt8(ascii: " ") { continue }
            guard let symbol = canonicalSymbol(byte), count < output.count else { return -1 }
            output[count] = symbol
            count += 1
        }
        return count
    }

    private static func canonicalSymbol(_ byte: UInt8) -> UInt8? {
        let upper = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) ? byte - 0x20 : byte
        switch upper {
        case UInt8(ascii: "I"), UInt8(ascii: "L"): return UInt8(ascii: "1")
        case UInt8(ascii: "O"): return UInt8(ascii: "0")
        default: return alphabet.contains(upper) ? upper : nil
        }
    }

    /// "7KQ2M-X9D4R": what the host shows. This is the one place the code becomes an ordinary string,
    /// to be printed and dropped.
    public var displayed: String {
        let symbols = canonicalBytes.exposedCopy()
        return String(decoding: symbols.prefix(5), as: UTF8.self) + "-" + String(decoding: symbols.dropFirst(5), as: UTF8.self)
    }
}
