/// A run of digit groups joined by short separators, the way identifiers are written:
/// "4111 1111 1111 1111", "(555) 123-4567", "+44 20 7946 0958", "123-45-6789".
///
/// The scanner reads one run at a time and lets the numeric detectors find identifiers in it, each
/// matching a stretch of whole groups. Reading is linear and never looks back, so a payload of a
/// hundred megabytes of digits costs one pass.
struct NumberRun {
    /// What stands between two groups. Only the short forms people write inside one number count.
    enum Separator: Equatable {
        case none, space, hyphen, dot, slash, openParenthesis, closeParenthesis, other
    }

    struct Group {
        let range: Range<Int>
        let separatorBefore: Separator

        var count: Int { range.count }
    }

    /// Separator bytes: at most this many may stand between two groups.
    static let maximumSeparatorLength = 3

    let start: Int
    let end: Int
    let groups: [Group]
    /// A "+" right before the first group (international form).
    let hasPlus: Bool
    /// A "(" right before the first group ("(555) 123-4567").
    let opensWithParenthesis: Bool
    /// The run is glued to a word before it ("ORD-4111...", "A12"), so its first group starts nothing.
    let startsInsideWord: Bool
    /// The run is glued to a word after it, so its last group ends nothing.
    let endsInsideWord: Bool

    /// Reads the run that starts at `start`: a digit, or a "+" or "(" followed by a digit.
    init(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) {
        self.start = start
        hasPlus = bytes[start] == UInt8(ascii: "+")
        opensWithParenthesis = bytes[start] == UInt8(ascii: "(")
        startsInsideWord = Self.isGlued(bytes, before: start)
        var groups: [Group] = []
        var position = hasPlus || opensWithParenthesis ? start + 1 : start
        var separator = Separator.none
        while true {
            let groupStart = position
            while position < bytes.count, ASCIIBytes.isDigit(bytes[position]) { position += 1 }
            groups.append(Group(range: groupStart..<position, separatorBefore: separator))
            // Only the separators written inside one number continue the run: ". " or ", " between
            // two numbers ends a sentence or a list item, and the next number starts a run of its own.
            guard let next = Self.separatorEnd(bytes, after: position) else { break }
            separator = Self.classify(bytes, position..<next)
            guard separator != .other else { break }
            position = next
        }
        self.groups = groups
        end = position
        endsInsideWord = Self.isGlued(bytes, after: position)
    }

    /// Where the next group starts if a short separator and then a digit follow `position`.
    private static func separatorEnd(_ bytes: UnsafeBufferPointer<UInt8>, after position: Int) -> Int? {
        var next = position
        while next < bytes.count, next - position < maximumSeparatorLength, isSeparatorByte(bytes[next]) { next += 1 }
        guard next > position, next < bytes.count, ASCIIBytes.isDigit(bytes[next]) else { return nil }
        return next
    }

    private static func isSeparatorByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: " "), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "/"), UInt8(ascii: "("), UInt8(ascii: ")"): true
        default: false
        }
    }

    private static func classify(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Separator {
        let first = bytes[range.lowerBound]
        let second = range.count > 1 ? bytes[range.lowerBound + 1] : 0
        switch (range.count, first, second) {
        case (1, UInt8(ascii: " "), _): return .space
        case (1, UInt8(ascii: "-"), _): return .hyphen
        case (1, UInt8(ascii: "."), _): return .dot
        case (1, UInt8(ascii: "/"), _): return .slash
        case (1, UInt8(ascii: "("), _), (2, UInt8(ascii: " "), UInt8(ascii: "(")): return .openParenthesis
        case (1, UInt8(ascii: ")"), _), (2, UInt8(ascii: ")"), UInt8(ascii: " ")), (2, UInt8(ascii: ")"), UInt8(ascii: "-")):
            return .closeParenthesis
        default: return .other
        }
    }

    /// Letters, digits and "_" glue; so do ",.-/:" when a letter or digit stands beyond them
    /// ("v2.555-1234", "$1,234,567"): the digits are then part of a larger token, not an identifier.
    static func isGlued(_ bytes: UnsafeBufferPointer<UInt8>, before position: Int) -> Bool {
        guard position > 0 else { return false }
        let previous = bytes[position - 1]
        if isWordByte(previous) { return true }
        return isJoiner(previous) && position > 1 && isWordByte(bytes[position - 2])
    }

    static func isGlued(_ bytes: UnsafeBufferPointer<UInt8>, after position: Int) -> Bool {
        guard position < bytes.count else { return false }
        let next = bytes[position]
        if isWordByte(next) { return true }
        return isJoiner(next) && position + 1 < bytes.count && isWordByte(bytes[position + 1])
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        ASCIIBytes.isAlphanumeric(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "@")
    }

    private static func isJoiner(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: ","), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "/"), UInt8(ascii: ":"): true
        default: false
        }
    }

    // MARK: Questions detectors ask

    /// Whether a match may begin at group `index`: at the run's start (unless glued to a word) or
    /// after a space or an opening parenthesis, never in the middle of a hyphenated or dotted number.
    func mayStart(at index: Int) -> Bool {
        guard index > 0 else { return !startsInsideWord }
        let separator = groups[index].separatorBefore
        return separator == .space || separator == .openParenthesis
    }

    /// Whether a match may end with group `index`: at the run's end (unless glued to a word) or before
    /// a space or a closing parenthesis ("(SSN 123-45-6789) 555-...").
    func mayEnd(at index: Int) -> Bool {
        guard index < groups.count - 1 else { return !endsInsideWord }
        let separator = groups[index + 1].separatorBefore
        return separator == .space || separator == .closeParenthesis
    }

    /// Bytes from the first byte of group `first` to the last of group `last`; with `prefix`, a match
    /// from the first group also covers the "+" or "(" before it (a phone's, not a card's).
    func span(_ first: Int, _ last: Int, prefix: Bool = false) -> Range<Int> {
        (prefix && first == 0 ? start : groups[first].range.lowerBound)..<groups[last].range.upperBound
    }
}
