/// The US National Provider Identifier (45 CFR 162.406): ten digits, the last a Luhn check digit.
///
/// CMS computes the check digit as if the NPI were a card number under the health-industry issuer
/// prefix 80840 (80 for health, 840 for the United States), so the Luhn check runs over
/// "80840" followed by the ten digits. Exactly ten ASCII digits are accepted, without separators,
/// since NPIs are written as one run of digits. The leading 1 or 2 of the NPIs issued so far is not
/// required, so that an NPI issued later with another first digit is still recognised.
public enum NPI {
    /// The issuer prefix CMS uses for the check digit.
    private static let issuerPrefix: [UInt8] = [8, 0, 8, 4, 0]

    public static func isValid(_ text: String) -> Bool {
        (try? validate(text)) != nil
    }

    /// Returns normally when `text` is an NPI, and otherwise throws why it is not.
    public static func validate(_ text: String) throws(PrivilegedSessionError) {
        var values: [UInt8] = []
        for scalar in text.unicodeScalars {
            guard let value = Luhn.asciiDigit(scalar) else {
                throw PrivilegedSessionError(.invalidCharacter, "an NPI holds only digits")
            }
            values.append(value)
        }
        guard values.count == 10 else {
            throw PrivilegedSessionError(.wrongLength, "an NPI has 10 digits, not \(values.count)")
        }
        guard Luhn.checksumHolds(issuerPrefix + values) else {
            throw PrivilegedSessionError(.checksumMismatch, "the NPI check digit does not match")
        }
    }
}
