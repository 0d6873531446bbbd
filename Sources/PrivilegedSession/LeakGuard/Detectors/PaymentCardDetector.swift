/// Payment card numbers (ISO/IEC 7812 primary account numbers): 13 to 19 digits, written straight or
/// in groups separated by single spaces or single hyphens (the same separator throughout), whose
/// leading digits belong to a known card scheme at one of its lengths, and whose Luhn check holds.
///
/// The scheme table is what separates a card from any other long number that happens to pass Luhn
/// (one in ten does): a 16-digit number starting with 9, say, is no card.
enum PaymentCardDetector {
    /// A scheme: the ranges of its leading digits (all of one width) and its card lengths.
    struct Scheme {
        let name: String
        let prefixes: [ClosedRange<Int>]
        let prefixDigits: Int
        let lengths: ClosedRange<Int>
    }

    /// Issuer identification ranges as the schemes publish them (Visa, Mastercard incl. the 2-series,
    /// American Express, Discover, JCB, Diners Club, UnionPay, Mir). Maestro is left out: its 12-digit
    /// cards and scattered ranges match too many ordinary numbers for too few real cards.
    static let schemes: [Scheme] = [
        Scheme(name: "Visa", prefixes: [4...4], prefixDigits: 1, lengths: 13...19),
        Scheme(name: "Mastercard", prefixes: [51...55], prefixDigits: 2, lengths: 16...16),
        Scheme(name: "Mastercard", prefixes: [2221...2720], prefixDigits: 4, lengths: 16...16),
        Scheme(name: "American Express", prefixes: [34...34, 37...37], prefixDigits: 2, lengths: 15...15),
        Scheme(name: "Discover", prefixes: [6011...6011], prefixDigits: 4, lengths: 16...19),
        Scheme(name: "Discover", prefixes: [644...649], prefixDigits: 3, lengths: 16...19),
        Scheme(name: "Discover", prefixes: [65...65], prefixDigits: 2, lengths: 16...19),
        Scheme(name: "JCB", prefixes: [3528...3589], prefixDigits: 4, lengths: 16...19),
        Scheme(name: "Diners Club", prefixes: [300...305, 309...309], prefixDigits: 3, lengths: 14...19),
        Scheme(name: "Diners Club", prefixes: [36...36, 38...39], prefixDigits: 2, lengths: 14...19),
        Scheme(name: "UnionPay", prefixes: [62...62], prefixDigits: 2, lengths: 16...19),
        Scheme(name: "Mir", prefixes: [2200...2204], prefixDigits: 4, lengths: 16...19),
    ]

    static let lengths = 13...19

    /// The longest card starting at group `first`; returns the index of its last group.
    static func match(_ run: NumberRun, from first: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard !run.hasPlus, run.mayStart(at: first) else { return nil }
        var best: Int?
        var digits: [UInt8] = []
        for index in first..<run.groups.count {
            let group = run.groups[index]
            guard isAcceptedGroup(run, first: first, index: index) else { break }
            guard digits.count + group.count <= lengths.upperBound else { break }
            for index in group.range { digits.append(bytes[index] &- 0x30) }
            if lengths.contains(digits.count), run.mayEnd(at: index), isCard(digits) { best = index }
        }
        return best
    }

    /// One group of 13-19 digits, or groups of 3 to 6 digits (the first of 4) behind one separator.
    private static func isAcceptedGroup(_ run: NumberRun, first: Int, index: Int) -> Bool {
        let group = run.groups[index]
        if index == first { return group.count == 4 || lengths.contains(group.count) }
        let separator = run.groups[first + 1].separatorBefore
        guard run.groups[first].count == 4, separator == .space || separator == .hyphen,
              group.separatorBefore == separator else { return false }
        return (1...6).contains(group.count)
    }

    static func isCard(_ digits: [UInt8]) -> Bool {
        schemes.contains { scheme in
            scheme.lengths.contains(digits.count) && scheme.prefixes.contains { $0.contains(leadingValue(digits, scheme.prefixDigits)) }
        } && Luhn.checksumHolds(digits)
    }

    private static func leadingValue(_ digits: [UInt8], _ count: Int) -> Int {
        digits.prefix(count).reduce(0) { $0 * 10 + Int($1) }
    }
}
