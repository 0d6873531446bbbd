/// Dates of birth: a date after a birth label ("DOB:", "date of birth", "born on"), in any of the
/// common forms, that exists on the calendar:
///
/// - numeric with one separator ("/", "-" or "."): 1962-03-14, 03/14/1962, 14.03.1962, 3/14/62
///   (month-day or day-month, whichever exists; two-digit years allowed);
/// - with the month in words: March 14, 1962; Mar. 14 1962; 14 March 1962; 14th Mar 1962; 14-Mar-1962.
///
/// An ordinary date without a birth label is no hit: notes are full of visit and filing dates.
enum DateOfBirthDetector {
    static func match(_ bytes: UnsafeBufferPointer<UInt8>, valueAt start: Int) -> Range<Int>? {
        var numeric = DateCursor(bytes: bytes, position: start)
        var dayFirst = numeric
        var monthFirst = numeric
        let parsed = ASCIIBytes.isDigit(bytes[start]) ? (numeric.numericDate() ?? dayFirst.dayFirstDate()) : monthFirst.monthFirstDate()
        guard let end = parsed else { return nil }
        return NumberRun.isGlued(bytes, after: end) ? nil : start..<end
    }
}

/// A forward-only reader for the date forms above; each method returns where the date ends.
private struct DateCursor {
    let bytes: UnsafeBufferPointer<UInt8>
    var position: Int

    static let monthNames: [[UInt8]] = ["january", "february", "march", "april", "may", "june", "july", "august",
                                        "september", "october", "november", "december"].map { Array($0.utf8) }

    // MARK: Forms

    mutating func numericDate() -> Int? {
        let first = digits(1...4)
        guard let first, position < bytes.count else { return nil }
        let separator = bytes[position]
        guard separator == UInt8(ascii: "/") || separator == UInt8(ascii: "-") || separator == UInt8(ascii: ".") else { return nil }
        position += 1
        guard let second = digits(1...2), take(separator), let third = digits(1...4) else { return nil }
        if first.digits == 4 {
            guard third.digits <= 2, CalendarDate.birthDate(writtenYear: first.value, digits: 4, month: second.value, day: third.value) != nil else { return nil }
        } else {
            guard first.digits <= 2, third.digits == 2 || third.digits == 4 else { return nil }
            let monthFirst = CalendarDate.birthDate(writtenYear: third.value, digits: third.digits, month: first.value, day: second.value)
            let dayFirst = CalendarDate.birthDate(writtenYear: third.value, digits: third.digits, month: second.value, day: first.value)
            guard monthFirst != nil || dayFirst != nil else { return nil }
        }
        return position
    }

    /// 14 March 1962, 14th Mar. 1962, 14-Mar-1962.
    mutating func dayFirstDate() -> Int? {
        guard let day = digits(1...2) else { return nil }
        skipOrdinalSuffix()
        guard skipGap(allowingComma: false), let month = monthName() else { return nil }
        guard skipGap(allowingComma: true), let year = digits(4...4) else { return nil }
        return CalendarDate.birthDate(writtenYear: year.value, digits: 4, month: month, day: day.value) == nil ? nil : position
    }

    /// March 14, 1962; Mar. 14 1962.
    mutating func monthFirstDate() -> Int? {
        guard let month = monthName(), skipGap(allowingComma: false), let day = digits(1...2) else { return nil }
        skipOrdinalSuffix()
        guard skipGap(allowingComma: true), let year = digits(4...4) else { return nil }
        return CalendarDate.birthDate(writtenYear: year.value, digits: 4, month: month, day: day.value) == nil ? nil : position
    }

    // MARK: Pieces

    /// A run of `counts` ASCII digits that is not followed by another digit.
    private mutating func digits(_ counts: ClosedRange<Int>) -> (value: Int, digits: Int)? {
        let start = position
        while position < bytes.count, position - start <= counts.upperBound, ASCIIBytes.isDigit(bytes[position]) { position += 1 }
        guard counts.contains(position - start) else { return nil }
        return (ASCIIBytes.number(bytes, start..<position), position - start)
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    /// A month in full or as its first three letters (or "sept"), optionally with a dot; its number.
    private mutating func monthName() -> Int? {
        let start = position
        while position < bytes.count, position - start <= 9, ASCIIBytes.isLetter(bytes[position]) { position += 1 }
        let word = bytes[start..<position].map(ASCIIBytes.lowercased)
        guard word.count >= 3, let index = Self.monthNames.firstIndex(where: { $0 == word || (word.count == 3 && $0.starts(with: word)) })
                ?? (word == Array("sept".utf8) ? 8 : nil) else { return nil }
        _ = take(UInt8(ascii: "."))
        return index + 1
    }

    private mutating func skipOrdinalSuffix() {
        guard position + 1 < bytes.count else { return }
        let pair = [ASCIIBytes.lowercased(bytes[position]), ASCIIBytes.lowercased(bytes[position + 1])]
        if [Array("st".utf8), Array("nd".utf8), Array("rd".utf8), Array("th".utf8)].contains(pair) { position += 2 }
    }

    /// One to three spaces or hyphens (and a comma where allowed) between the parts of a written date.
    private mutating func skipGap(allowingComma: Bool) -> Bool {
        let start = position
        while position < bytes.count, position - start < 3 {
            let byte = bytes[position]
            guard byte == UInt8(ascii: " ") || byte == UInt8(ascii: "-") || (allowingComma && byte == UInt8(ascii: ",")) else { break }
            position += 1
        }
        return position > start
    }
}
