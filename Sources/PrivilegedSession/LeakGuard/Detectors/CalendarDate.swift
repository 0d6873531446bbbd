/// A day of the proleptic Gregorian calendar, checked for existence: month 1...12 and a day the month
/// has (29 February only in leap years).
struct CalendarDate: Equatable {
    /// Years a date of birth may carry. Four-digit years outside are refused ("DOB 03/14/3021").
    static let birthYears = 1870...2100

    let year: Int
    let month: Int
    let day: Int

    init?(year: Int, month: Int, day: Int) {
        guard (1...12).contains(month), day >= 1, day <= Self.daysIn(month: month, year: year) else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    static func isLeap(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// The full year of a written year: four digits in `birthYears`, or two digits, read in whichever
    /// century makes the date exist (a two-digit 29 February stands in 2000 if not in 1900).
    static func birthDate(writtenYear: Int, digits: Int, month: Int, day: Int) -> CalendarDate? {
        if digits == 4 {
            return birthYears.contains(writtenYear) ? CalendarDate(year: writtenYear, month: month, day: day) : nil
        }
        guard digits == 2 else { return nil }
        return CalendarDate(year: 1900 + writtenYear, month: month, day: day) ?? CalendarDate(year: 2000 + writtenYear, month: month, day: day)
    }
}
