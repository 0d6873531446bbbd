import Foundation

/// Bytes given as a hex string in the JSON; malformed hex fails decoding (and so the test).
public struct HexBytes: Decodable, Sendable {
    public let bytes: [UInt8]

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let bytes = [UInt8](hex: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not hex: \(text)"))
        }
        self.bytes = bytes
    }
}

extension Array where Element == UInt8 {
    /// Decodes lowercase or uppercase hex with no separators; nil for odd length or a non-hex digit.
    public init?(hex: String) {
        let digits = Array(hex.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = Self.hexValue(digits[index]), let low = Self.hexValue(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        self = bytes
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// Hex text (either case) to bytes, for a test's known answers; malformed text throws (and so fails
/// the test, naming the text).
public func hex(_ text: String) throws -> [UInt8] {
    guard let bytes = [UInt8](hex: text) else { throw VectorMalformed(description: "not hex: \(text.prefix(40))") }
    return bytes
}

/// Each of `texts`, as `hex(_:)`.
public func hex(_ texts: [String]) throws -> [[UInt8]] { try texts.map { try hex($0) } }

/// The same for a constant written in a test's source (a stored property's initial value), where
/// nothing can throw: malformed text there is a broken test, and stops it.
public func knownHex(_ text: String) -> [UInt8] {
    guard let bytes = [UInt8](hex: text) else { preconditionFailure("not hex: \(text)") }
    return bytes
}

/// Bytes given as lowercase hex in a vector file, as testvectors/generate.py writes every one: an
/// uppercase digit, odd length or non-hex digit fails decoding (and so the test), so a hand-edited
/// or differently generated file is noticed instead of read.
public struct LowercaseHex: Decodable, Sendable, Equatable {
    public let bytes: [UInt8]

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard !text.utf8.contains(where: { (UInt8(ascii: "A")...UInt8(ascii: "F")).contains($0) }), let bytes = [UInt8](hex: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not lowercase hex: \(text.prefix(40))"))
        }
        self.bytes = bytes
    }
}
