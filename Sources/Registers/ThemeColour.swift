import Foundation

/// A register's theme colour, used for text and accents on a white page, so it must reach WCAG 2.x
/// level AA contrast for normal text against white (4.5:1); `RegisterProfileTests` computes it.
public struct ThemeColour: Sendable, Equatable {
    public let red: UInt8, green: UInt8, blue: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// Parses "#RRGGBB" (six hex digits, either case); anything else is nil (each digit is checked:
    /// `UInt32(_:radix:)` alone would take a sign, "#+F766E").
    public init?(hex: String) {
        let digits = Array(hex.utf8)
        guard digits.count == 7, digits[0] == UInt8(ascii: "#"),
              digits.dropFirst().allSatisfy({ Self.isHexDigit($0) }),
              let value = UInt32(String(decoding: digits[1...], as: UTF8.self), radix: 16) else { return nil }
        self.init(red: UInt8((value >> 16) & 0xFF), green: UInt8((value >> 8) & 0xFF), blue: UInt8(value & 0xFF))
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    public static let white = ThemeColour(red: 255, green: 255, blue: 255)

    /// "#RRGGBB", upper case.
    public var hex: String {
        "#" + [red, green, blue].map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
    }

    /// WCAG 2.x relative luminance: each sRGB channel linearised, weighted 0.2126, 0.7152, 0.0722.
    public var relativeLuminance: Double {
        func linear(_ channel: UInt8) -> Double {
            let c = Double(channel) / 255
            return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
    }

    /// WCAG 2.x contrast ratio, (L1 + 0.05) / (L2 + 0.05) with L1 the lighter: 1 to 21.
    public func contrastRatio(against other: ThemeColour) -> Double {
        let a = relativeLuminance, b = other.relativeLuminance
        return (max(a, b) + 0.05) / (min(a, b) + 0.05)
    }

    /// Level AA for normal-size text.
    public static let minimumTextContrast = 4.5
}
