import CryptoVault

/// The byte-string encodings of draft-irtf-cfrg-cpace-21: a length in LEB128 before each field,
/// so that a concatenation of fields has exactly one way to be split back.
///
///     prepend_len(data)      = LEB128(len(data)) || data
///     lv_cat(a0, a1, ...)    = prepend_len(a0) || prepend_len(a1) || ...
///     o_cat(b1, b2)          = "oc" || max(b1, b2) || min(b1, b2)    (lexicographic order)
enum CPaceEncoding {
    /// LEB128 of `length`: seven bits per byte, least significant first, high bit set on every byte
    /// but the last.
    static func lengthPrefix(_ length: Int) -> [UInt8] {
        var remaining = UInt(length)
        var encoded: [UInt8] = []
        repeat {
            let low = UInt8(remaining & 0x7F)
            remaining >>= 7
            encoded.append(remaining == 0 ? low : low | 0x80)
        } while remaining != 0
        return encoded
    }

    static func prependLength(_ data: [UInt8]) -> [UInt8] {
        lengthPrefix(data.count) + data
    }

    static func lengthValueConcatenation(_ fields: [UInt8]...) -> [UInt8] {
        fields.flatMap(prependLength)
    }

    /// o_cat: "oc", then the lexicographically larger string, then the other. A string that is a
    /// prefix of the other is the smaller one (the draft's `lexiographically_larger`).
    static func orderedConcatenation(_ first: [UInt8], _ second: [UInt8]) -> [UInt8] {
        let firstIsLarger = second.lexicographicallyPrecedes(first)
        return Array("oc".utf8) + (firstIsLarger ? first + second : second + first)
    }
}

/// A strict reader of `lv_cat` fields: every length must be minimally encoded and at most
/// `maximumFieldLength`, every field complete, and nothing may follow the last field.
struct CPaceFieldReader {
    /// Fields this protocol sends are short; two LEB128 bytes (up to 16383) are more than enough,
    /// and bounding the prefix bounds the work a hostile length can cause.
    static let maximumFieldLength = 16383

    private var remaining: ArraySlice<UInt8>

    init(_ bytes: [UInt8]) {
        remaining = bytes[...]
    }

    mutating func readField() throws(PeerChannelError) -> [UInt8] {
        let length = try readLength()
        guard remaining.count >= length else {
            throw PeerChannelError(.malformedPairingMessage, "a field announces \(length) bytes but \(remaining.count) remain")
        }
        let field = Array(remaining.prefix(length))
        remaining = remaining.dropFirst(length)
        return field
    }

    func finish() throws(PeerChannelError) {
        guard remaining.isEmpty else {
            throw PeerChannelError(.malformedPairingMessage, "\(remaining.count) bytes follow the last field")
        }
    }

    private mutating func readLength() throws(PeerChannelError) -> Int {
        var length = 0
        for position in 0..<2 {
            guard let byte = remaining.popFirst() else {
                throw PeerChannelError(.malformedPairingMessage, "the message ends inside a length prefix")
            }
            length |= Int(byte & 0x7F) << (7 * position)
            if byte & 0x80 == 0 {
                // A final byte of zero after the first adds nothing: a second encoding of a shorter prefix.
                guard position == 0 || byte != 0 else {
                    throw PeerChannelError(.malformedPairingMessage, "a length prefix is not minimally encoded")
                }
                return length
            }
        }
        throw PeerChannelError(.malformedPairingMessage, "a length prefix exceeds \(Self.maximumFieldLength)")
    }
}
