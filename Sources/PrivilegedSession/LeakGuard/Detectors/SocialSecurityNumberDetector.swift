/// US Social Security numbers: AAA-GG-SSSS (area, group, serial).
///
/// SSA never issues area 000, 666 or 900-999, group 00 or serial 0000, so those are refused. Unlabelled,
/// only the dashed form is taken: nine bare digits or "123 45 6789" are as likely a ZIP+4, a routing
/// number or a count, so those forms count only after an SSN label ("SSN: 123456789").
enum SocialSecurityNumberDetector {
    /// The dashed form starting at group `first` of `run`; returns the index of its last group.
    static func match(_ run: NumberRun, from first: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        let last = first + 2
        guard !run.hasPlus, last < run.groups.count, run.mayStart(at: first), run.mayEnd(at: last),
              run.groups[first + 1].separatorBefore == .hyphen, run.groups[last].separatorBefore == .hyphen else { return nil }
        return isValid(run, first, bytes) ? last : nil
    }

    /// After a label: the dashed form, the spaced form, or nine digits in one group, as the run's start.
    static func matchLabelled(_ run: NumberRun, in bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        guard !run.hasPlus, run.mayStart(at: 0) else { return nil }
        if run.groups[0].count == 9, run.mayEnd(at: 0) {
            let digits = run.groups[0].range.lowerBound
            return isValid(area: ASCIIBytes.number(bytes, digits..<digits + 3), group: ASCIIBytes.number(bytes, digits + 3..<digits + 5),
                           serial: ASCIIBytes.number(bytes, digits + 5..<digits + 9)) ? run.span(0, 0) : nil
        }
        guard run.groups.count >= 3, run.mayEnd(at: 2) else { return nil }
        let separator = run.groups[1].separatorBefore
        guard separator == .hyphen || separator == .space, run.groups[2].separatorBefore == separator,
              isValid(run, 0, bytes) else { return nil }
        return run.span(0, 2)
    }

    /// Groups `first`...`first + 2` are 3, 2 and 4 digits and a number SSA could have issued.
    private static func isValid(_ run: NumberRun, _ first: Int, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let area = run.groups[first], group = run.groups[first + 1], serial = run.groups[first + 2]
        guard area.count == 3, group.count == 2, serial.count == 4 else { return false }
        return isValid(area: ASCIIBytes.number(bytes, area.range), group: ASCIIBytes.number(bytes, group.range),
                       serial: ASCIIBytes.number(bytes, serial.range))
    }

    static func isValid(area: Int, group: Int, serial: Int) -> Bool {
        area != 0 && area != 666 && area < 900 && group != 0 && serial != 0
    }
}
