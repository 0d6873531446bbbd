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

    private static func international(_ run: NumberRun, in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard !run.startsInsideWord, bytes[run.groups[0].range.lowerBound] != UInt8(ascii: "0") else { return nil }
        var digits: [UInt8] = []
        var last: Int?
        for index in run.groups.indices {
            guard index == 0 || isInternationalSeparator(run.groups[index].separatorBefore) else { break }
            digits.append(contentsOf: bytes[run.groups[index].range])
            guard digits.count <= internationalDigits.upperBound else { break }
            if internationalDigits.contains(digits.count), run.mayEnd(at: index) { last = index }
        }
        guard let last else { return nil }
        let count = run.groups[0...last].reduce(0) { $0 + $1.count }
        if digits[0] == UInt8(ascii: "1") {
            return count == 11 && isNorthAmerican(Array(digits[1..<11])) ? last : nil
        }
        return last
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
        let groups = run.groups[area...last]
        guard groups.map(\.count) == [3, 3, 4], hasNorthAmericanSeparators(run, area: area, leadingOne: area > first) else { return nil }
        let digits = groups.flatMap { bytes[$0.range] }
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
            guard last < run.groups.count, run.mayEnd(at: last),
                  run.groups[first...last].map(\.count) == grouping else { continue }
            let separators = run.groups[(first + 1)...last].map(\.separatorBefore)
            let expected = parenthesised ? [.closeParenthesis] + Array(repeating: .space, count: grouping.count - 2)
                                         : Array(repeating: NumberRun.Separator.space, count: grouping.count - 1)
            if separators == expected { return last }
        }
        return nil
    }
}
