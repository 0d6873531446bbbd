/// The Luhn check (ISO/IEC 7812-1 Annex B) that payment card numbers carry in their last digit.
///
/// Only ASCII digits count; ASCII spaces and hyphens are ignored wherever they stand, since cards are
/// written in groups ("4111 1111 1111 1111", "4111-1111-..."). Any other character, including digits
/// of other scripts, makes the text not a card number. At least two digits are required: a lone digit
/// would be its own check digit, and "0" would pass.
public enum Luhn {
    public static func isValid(_ digits: String) -> Bool {
        (try? validate(digits)) != nil
    }

    /// Returns normally when `digits` passes, and otherwise throws why it does not.
    public static func validate(_ digits: String) throws(PrivilegedSessionError) {
        var values: [UInt8] = []
        for scalar in digits.unicodeScalars where scalar != " " && scalar != "-" {
            guard let value = asciiDigit(scalar) else {
                throw PrivilegedSessionError(.invalidCharacter, "a card number holds only digits, spaces and hyphens")
            }
            values.append(value)
        }
        guard values.count >= 2 else {
            throw PrivilegedSessionError(.wrongLength, "a Luhn number has at least 2 digits, not \(values.count)")
        }
        guard checksumHolds(values) else {
            throw PrivilegedSessionError(.checksumMismatch, "the Luhn check digit does not match")
        }
    }

    /// The Luhn sum over digit values: from the right, every second digit is doubled (and 9 taken off
    /// when that gives two digits); the total must be a multiple of 10.
    static func checksumHolds(_ values: [UInt8]) -> Bool {
        var sum = 0
        for (position, value) in values.reversed().enumerated() {
            let digit = Int(value)
            let doubled = digit * 2
            sum += position % 2 == 0 ? digit : (doubled > 9 ? doubled - 9 : doubled)
        }
        return sum % 10 == 0
    }

    /// The value of an ASCII digit, or nil for anything else.
    static func asciiDigit(_ scalar: Unicode.Scalar) -> UInt8? {
        guard ("0"..."9").contains(scalar) else { return nil }
        return UInt8(scalar.value - 48)
    }
}
