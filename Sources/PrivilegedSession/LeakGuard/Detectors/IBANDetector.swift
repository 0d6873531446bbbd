/// International Bank Account Numbers, checked with `IBAN` (registered length, MOD 97-10).
///
/// A candidate is a word that starts with two letters and two digits, in electronic form
/// ("GB82WEST12345698765432") or paper form (groups of four separated by single spaces, the last
/// group shorter). Lowercase is accepted here and uppercased before the check: a pasted IBAN in
/// lowercase is still an account number.
enum IBANDetector {
    enum Candidate: Equatable {
        /// A valid IBAN.
        case iban(Range<Int>)
        /// IBAN-shaped (at least 15 characters) but failing its check: the scanner skips it whole, so
        /// that the digit groups of a mistyped IBAN are not read as a card or a phone.
        case invalid(end: Int)
    }

    /// The IBAN-shaped word that starts at `start` (a letter at the start of a word), if there is one.
    static func match(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Candidate? {
        guard start + 4 <= bytes.count, ASCIIBytes.isLetter(bytes[start + 1]), ASCIIBytes.isDigit(bytes[start + 2]),
              ASCIIBytes.isDigit(bytes[start + 3]) else { return nil }
        let (characters, ends) = collect(bytes, from: start)
        for length in candidateLengths(characters) {
            let end = ends[length - 1]
            // The IBAN must end where its word does (or at the end of a paper group).
            guard !NumberRun.isGlued(bytes, after: end) || bytes[end] == UInt8(ascii: " ") else { continue }
            if IBAN.isValid(String(decoding: characters.prefix(length), as: UTF8.self)) { return .iban(start..<end) }
        }
        return characters.count >= IBAN.lengthRange.lowerBound ? .invalid(end: ends[characters.count - 1]) : nil
    }

    /// Up to 34 characters, uppercased, and for each the byte just after it. Spaces are taken only
    /// between groups of exactly four characters, as the paper form writes them.
    private static func collect(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> ([UInt8], [Int]) {
        var characters: [UInt8] = []
        var ends: [Int] = []
        var position = start
        var groupLength = 0
        while position < bytes.count, characters.count < IBAN.lengthRange.upperBound {
            let byte = bytes[position]
            if ASCIIBytes.isAlphanumeric(byte) {
                characters.append(ASCIIBytes.isLetter(byte) ? byte & ~0x20 : byte)
                position += 1
                ends.append(position)
                groupLength += 1
            } else if byte == UInt8(ascii: " "), groupLength == 4, position + 1 < bytes.count, ASCIIBytes.isAlphanumeric(bytes[position + 1]) {
                groupLength = 0
                position += 1
            } else {
                break
            }
        }
        return (characters, ends)
    }

    /// The registered length of the country if it is known (the only one worth trying), otherwise
    /// every length the standard allows, longest first.
    private static func candidateLengths(_ characters: [UInt8]) -> [Int] {
        let country = String(decoding: characters.prefix(2), as: UTF8.self)
        if let length = IBAN.registeredLengths[country] {
            return characters.count >= length ? [length] : []
        }
        return IBAN.lengthRange.reversed().filter { $0 <= characters.count }
    }
}
