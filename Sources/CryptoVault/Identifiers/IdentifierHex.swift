/// The one hex parser for typed ids (`TypedIdentifier`: `BundleID`, `VaultID`, `CompartmentID`, `DeviceID`, and the writing model's `WritingID`s): exactly `2 * size` hex digits, either
/// case, so each id type refuses bad text with the same rules and only its own name in the reason.
package enum IdentifierHex {
    /// The bytes of `text`, or `.invalidIdentifier` naming `kind` ("a bundle id") and what was wrong.
    package static func bytes(_ text: String, size: Int, kind: String) throws(CryptoVaultError) -> [UInt8] {
        let digits = Array(text.utf8)
        guard digits.count == 2 * size else {
            throw CryptoVaultError(.invalidIdentifier, "\(kind) is \(2 * size) hex digits, not \(digits.count) bytes of text")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        for pair in stride(from: 0, to: digits.count, by: 2) {
            guard let high = value(ofHexDigit: digits[pair]), let low = value(ofHexDigit: digits[pair + 1]) else {
                throw CryptoVaultError(.invalidIdentifier, "\(kind) is hex digits only (0-9, a-f)")
            }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func value(ofHexDigit digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
