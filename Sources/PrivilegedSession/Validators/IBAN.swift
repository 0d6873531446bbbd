/// The International Bank Account Number of ISO 13616-1, checked with ISO 7064 MOD 97-10.
///
///     IBAN = country code (2 letters) || check digits (2 digits) || BBAN (letters and digits)
///
/// Accepted text is the electronic form (uppercase letters and digits) or the paper form, which adds
/// spaces (groups of four); ASCII spaces are ignored wherever they stand. Lowercase is refused: the
/// standard's IBAN is uppercase, and a caller that wants to match a lowercased paste (a leak detector
/// might) uppercases its candidate first, as a choice it makes, not one hidden here.
///
/// The length must be the registered one for the countries below (European members of the SWIFT IBAN
/// registry); for any other country code it must lie in 15...34, the range the standard allows.
public enum IBAN {
    /// IBAN lengths from the SWIFT IBAN registry (as also published in python-stdnum's iban.dat).
    static let registeredLengths: [String: Int] = [
        "AD": 24, "AL": 28, "AT": 20, "BA": 20, "BE": 16, "BG": 22, "CH": 21, "CY": 28, "CZ": 24,
        "DE": 22, "DK": 18, "EE": 20, "ES": 24, "FI": 18, "FO": 18, "FR": 27, "GB": 22, "GI": 23,
        "GL": 18, "GR": 27, "HR": 21, "HU": 28, "IE": 22, "IS": 26, "IT": 27, "LI": 21, "LT": 20,
        "LU": 20, "LV": 21, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MT": 31, "NL": 18, "NO": 15,
        "PL": 28, "PT": 25, "RO": 24, "RS": 22, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "XK": 20,
    ]

    /// The lengths ISO 13616 allows for any country.
    public static let lengthRange = 15...34

    public static func isValid(_ text: String) -> Bool {
        (try? validate(text)) != nil
    }

    /// Returns normally when `text` is an IBAN, and otherwise throws why it is not.
    public static func validate(_ text: String) throws(PrivilegedSessionError) {
        let characters = try compact(text)
        try checkStructure(characters)
        try checkLength(characters)
        try checkCheckDigits(characters)
        // ISO 7064 MOD 97-10: move the first four characters to the end; the number must be 1 mod 97.
        guard remainder97(Array(characters[4...] + characters[..<4])) == 1 else {
            throw PrivilegedSessionError(.checksumMismatch, "the IBAN check digits do not match")
        }
    }

    /// The characters without spaces; throws at any character outside A-Z and 0-9.
    private static func compact(_ text: String) throws(PrivilegedSessionError) -> [Unicode.Scalar] {
        var characters: [Unicode.Scalar] = []
        for scalar in text.unicodeScalars where scalar != " " {
            guard isUppercaseLetter(scalar) || Luhn.asciiDigit(scalar) != nil else {
                throw PrivilegedSessionError(.invalidCharacter, "an IBAN holds only uppercase letters, digits and spaces")
            }
            characters.append(scalar)
        }
        return characters
    }

    /// Two letters, then two digits; only then can the country and the check digits be read.
    private static func checkStructure(_ characters: [Unicode.Scalar]) throws(PrivilegedSessionError) {
        guard lengthRange.contains(characters.count) else {
            throw PrivilegedSessionError(.wrongLength, "an IBAN has \(lengthRange.lowerBound) to \(lengthRange.upperBound) characters, not \(characters.count)")
        }
        guard isUppercaseLetter(characters[0]), isUppercaseLetter(characters[1]) else {
            throw PrivilegedSessionError(.invalidCharacter, "an IBAN starts with a two-letter country code")
        }
        guard Luhn.asciiDigit(characters[2]) != nil, Luhn.asciiDigit(characters[3]) != nil else {
            throw PrivilegedSessionError(.invalidCharacter, "an IBAN's check digits are digits")
        }
    }

    private static func checkLength(_ characters: [Unicode.Scalar]) throws(PrivilegedSessionError) {
        let country = String(String.UnicodeScalarView(characters.prefix(2)))
        guard let length = registeredLengths[country] else { return }
        guard characters.count == length else {
            throw PrivilegedSessionError(.wrongLength, "an IBAN of \(country) has \(length) characters, not \(characters.count)")
        }
    }

    /// MOD 97-10 check digits are 98 minus a remainder, so only 02...98 occur. 00, 01 and 99 are
    /// equal to 97, 98 and 02 modulo 97 and would pass the sum: refusing them keeps one spelling per IBAN.
    private static func checkCheckDigits(_ characters: [Unicode.Scalar]) throws(PrivilegedSessionError) {
        let checkDigits = Int(characters[2].value - 48) * 10 + Int(characters[3].value - 48)
        guard (2...98).contains(checkDigits) else {
            throw PrivilegedSessionError(.invalidCheckDigits, "IBAN check digits lie in 02...98")
        }
    }

    /// The number spelled by `characters` (a digit is itself, a letter A...Z is 10...35) modulo 97,
    /// computed a character at a time so that no 30-digit integer is ever needed.
    private static func remainder97(_ characters: [Unicode.Scalar]) -> Int {
        var remainder = 0
        for scalar in characters {
            if let digit = Luhn.asciiDigit(scalar) {
                remainder = (remainder * 10 + Int(digit)) % 97
            } else {
                remainder = (remainder * 100 + Int(scalar.value) - 55) % 97
            }
        }
        return remainder
    }

    private static func isUppercaseLetter(_ scalar: Unicode.Scalar) -> Bool {
        ("A"..."Z").contains(scalar)
    }
}
