/// Phone numbers in the forms people write them, each checked against its numbering plan:
///
/// - International (E.164): "+" then 8 to 15 digits in groups ("+44 20 7946 0958", "+15551234567");
///   after "+1" the ten digits must be a valid North American number.
/// - North American (NANP): "(555) 123-4567", "555-123-4567", "555.123.4567", "555 123 4567", with an
///   optional leading "1"; area code and exchange are NXX (first digit 2-9) and not N11 (211...911,
///   which are service codes). Ten bare digits are not taken: they are as often an order number.
/// - United Kingdom national: a leading 0 then a non-zero digit, in the groupings the national plan
///   uses, separated by spaces ("020 7946 0958", "0161 496 0123", "07700 900123", "(020) 7946 0958").
enum PhoneDetector {
    static let internationalDigits = 8...15

    static func match(_ run: NumberRun, from first: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        if first == 0, run.hasPlus { return international(run, in: bytes) }
        if let last = northAmerican(run, from: first, in: bytes) { return last }
        return unitedKingdom(run, from: first, in: bytes)
    }

    // MARK: International

    /// The longest stretch of groups after the "+" that is a plausible international number.
    private static func international(_ run: NumberRun, in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard !run.startsInsideWord, bytes[run.groups[0].range.lowerBound] != UInt8(ascii: "0") else { return nil }
        var digits: [UInt8] = []
        var candidates: [(last: Int, digits: Int)] = []
        for index in run.groups.indices {
            guard index == 0 || isInternationalSeparator(run.groups[index].separatorBefore) else { break }
            digits.append(contentsOf: bytes[run.groups[index].range])
            guard digits.count <= internationalDigits.upperBound else { break }
            if internationalDigits.contains(digits.count), run.mayEnd(at: index) { candidates.append((index, digits.count)) }
        }
        for candidate in candidates.reversed() {
            // Country code 1 is the North American plan: exactly ten more digits, valid as NANP.
            guard digits[0] == UInt8(ascii: "1") else { return candidate.last }
            if candidate.digits == 11, isNorthAmerican(Array(digits[1..<11])) { return candidate.last }
        }
        return nil
    }

    private static func isInternationalSeparator(_ separator: NumberRun.Separator) -> Bool {
        separator == .space || separator == .hyphen || separator == .dot
            || separator == .openParenthesis || separator == .closeParenthesis
    }

    // MARK: North American

    /// [1 ]AAA EEE LLLL with one separator style, or [1 ](AAA) EEE-LLLL.
    private static func northAmerican(_ run: NumberRun, from first: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard run.mayStart(at: first) else { return nil }
        var area = first
        if run.groups[first].count == 1, bytes[run.groups[first].range.lowerBound] == UInt8(ascii: "1"), !run.opensWithParenthesis {
            area = first + 1
        }
        let last = area + 2
        guard last < run.groups.count, area > first || !run.hasPlus, run.mayEnd(at: last) else { return nil }
        guard hasGrouping(run, from: area, [3, 3, 4]), hasNorthAmericanSeparators(run, area: area, leadingOne: area > first) else { return nil }
        let digits = run.groups[area...last].flatMap { bytes[$0.range] }
        return isNorthAmerican(digits) ? last : nil
    }

    private static func hasNorthAmericanSeparators(_ run: NumberRun, area: Int, leadingOne: Bool) -> Bool {
        let toArea = run.groups[area].separatorBefore
        let toExchange = run.groups[area + 1].separatorBefore
        let toLine = run.groups[area + 2].separatorBefore
        let parenthesised = (area == 0 && run.opensWithParenthesis) || (leadingOne && toArea == .openParenthesis)
        if parenthesised {
            return toExchange == .closeParenthesis && (toLine == .hyphen || toLine == .space || toLine == .dot)
        }
        let plain: Set<NumberRun.Separator> = [.hyphen, .dot, .space]
        guard plain.contains(toExchange), toLine == toExchange else { return false }
        return !leadingOne || toArea == toExchange
    }

    /// Ten ASCII digits forming a NANP number: NXX area code, NXX exchange, neither of the form N11.
    static func isNorthAmerican(_ digits: [UInt8]) -> Bool {
        guard digits.count == 10 else { return false }
        let values = digits.map { Int($0 &- 0x30) }
        func isNXX(_ start: Int) -> Bool {
            values[start] >= 2 && !(values[start + 1] == 1 && values[start + 2] == 1)
        }
        return isNXX(0) && isNXX(3)
    }

    // MARK: United Kingdom

    /// Group lengths of the national forms Ofcom's numbering gives: 02x xxxx xxxx, 01xx xxx xxxx (and
    /// 03, 08, 09), 01xxx xxxxxx, 07xxx xxxxxx, 01xxx xxxxx, 01xxx xxx xxx.
    static let unitedKingdomGroupings: [[Int]] = [[3, 4, 4], [4, 3, 4], [5, 6], [5, 5], [5, 3, 3]]

    private static func unitedKingdom(_ run: NumberRun, from first: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard run.mayStart(at: first), !run.hasPlus else { return nil }
        let leading = run.groups[first]
        guard leading.count >= 3, bytes[leading.range.lowerBound] == UInt8(ascii: "0"),
              bytes[leading.range.lowerBound + 1] != UInt8(ascii: "0") else { return nil }
        let parenthesised = first == 0 && run.opensWithParenthesis
        for grouping in unitedKingdomGroupings {
            let last = first + grouping.count - 1
            guard last < run.groups.count, hasGrouping(run, from: first, grouping), run.mayEnd(at: last) else { continue }
            let spaced = ((first + 1)...last).allSatisfy { index in
                run.groups[index].separatorBefore == (parenthesised && index == first + 1 ? .closeParenthesis : .space)
            }
            if spaced { return last }
        }
        return nil
    }

    /// Whether the groups from `first` on have exactly the lengths `lengths` (more may follow).
    private static func hasGrouping(_ run: NumberRun, from first: Int, _ lengths: [Int]) -> Bool {
        guard first + lengths.count <= run.groups.count else { return false }
        for (offset, length) in lengths.enumerated() where run.groups[first + offset].count != length { return false }
        return true
    }
}
