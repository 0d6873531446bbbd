/// Order keys (fractional indexing): strings of base-36 digits (`0`-`9`, `a`-`z`) that sort, byte by
/// byte, in the order their nodes are shown. A key can always be made between any two, so inserting
/// or moving a node writes its own key and leaves its siblings' alone: order survives moves, and two
/// devices that insert at once never renumber each other (SECURITY.md §14.2).
///
///     key      = head integer fraction
///     head     = one digit h (0 to 35): how many digits the integer has
///     integer  = h digits
///     fraction = digits, empty or not ending in `0`
///
/// A longer integer has a larger head, so integers sort as numbers, and appending at the end (the
/// common case: the next integer) makes keys grow by one digit per factor of 36, not per insert.
/// Inserting between two keys with the same integer splits their fractions (Greenspan's midpoint).
public enum OrderKey {
    static let digits = Array("0123456789abcdefghijklmnopqrstuvwxyz".utf8)
    /// The change record's bound (an order key is a str8 there, SECURITY.md §19.2): the store keeps
    /// no longer key, so every key it holds can be sent (review 17 s10, N-s10-2; it was 256).
    public static let maximumLength = 255

    /// The first key of an empty list: integer `i`.
    public static let first = "1i"

    /// A key strictly between `lower` and `upper`; nil stands for the start or the end of the list.
    /// Requires `lower < upper` when both are given, and both valid (`isValid`).
    public static func between(_ lower: String?, _ upper: String?) -> String {
        let a = lower.flatMap { split(Array($0.utf8)) }, b = upper.flatMap { split(Array($0.utf8)) }
        let key: [UInt8]
        switch (a, b) {
        case (nil, nil): key = Array(first.utf8)
        case (let a?, nil): key = increment(a.integer) ?? a.integer + midpoint(a.fraction, nil)
        case (nil, let b?):
            if !b.fraction.isEmpty { key = b.integer + midpoint([], b.fraction) }
            else { key = decrement(b.integer) ?? [digits[0]] + midpoint([], nil) }
        case (let a?, let b?):
            if a.integer == b.integer { key = a.integer + midpoint(a.fraction, b.fraction) }
            else if let next = increment(a.integer), next.lexicographicallyPrecedes(b.integer) { key = next }
            else { key = a.integer + midpoint(a.fraction, nil) }
        }
        return String(decoding: key, as: UTF8.self)
    }

    /// `count` keys strictly between `lower` and `upper`, ascending and evenly spread: the middle one
    /// first, then each half alike. A run of n new nodes costs about log36(n) digits more than its
    /// neighbours, where keys made one after another would cost n/6 (review 17 s10, N-s10-2).
    public static func keys(_ count: Int, between lower: String?, _ upper: String?) -> [String] {
        guard count > 0 else { return [] }
        let middle = between(lower, upper), before = count / 2
        return keys(before, between: lower, middle) + [middle] + keys(count - before - 1, between: middle, upper)
    }

    /// Whether `key` is short enough to keep and send (`maximumLength`).
    public static func fits(_ key: String) -> Bool { key.utf8.count <= maximumLength }

    /// The grammar above, at most `maximumLength` bytes (a hostile row is refused).
    public static func isValid(_ key: String) -> Bool {
        let bytes = Array(key.utf8)
        return bytes.count <= maximumLength && split(bytes) != nil
    }

    private static func value(_ digit: UInt8) -> Int? { digits.firstIndex(of: digit) }

    /// (head and integer, fraction), or nil when `key` is not in the grammar.
    private static func split(_ key: [UInt8]) -> (integer: [UInt8], fraction: [UInt8])? {
        guard let head = key.first.flatMap(value), key.count > head, key.allSatisfy({ value($0) != nil }) else { return nil }
        let fraction = Array(key[(head + 1)...])
        guard fraction.last != digits[0], head > 0 || !fraction.isEmpty else { return nil }
        return (Array(key[...head]), fraction)
    }

    /// The next integer: one more, or the smallest with one digit more; nil past 35 digits.
    private static func increment(_ integer: [UInt8]) -> [UInt8]? {
        var body = Array(integer.dropFirst())
        for index in body.indices.reversed() {
            let digit = value(body[index])!
            if digit < digits.count - 1 { body[index] = digits[digit + 1]; return [integer[0]] + body }
            body[index] = digits[0]
        }
        let head = value(integer[0])! + 1
        guard head < digits.count else { return nil }
        return [digits[head], digits[1]] + Array(repeating: digits[0], count: head - 1)
    }

    /// The integer before: one less, or the largest with one digit fewer; nil below `10`.
    private static func decrement(_ integer: [UInt8]) -> [UInt8]? {
        var body = Array(integer.dropFirst())
        for index in body.indices.reversed() {
            let digit = value(body[index])!
            if digit > 0 { body[index] = digits[digit - 1]; return [integer[0]] + body }
            body[index] = digits[digits.count - 1]
        }
        let head = value(integer[0])! - 1
        guard head >= 1 else { return nil }
        return [digits[head]] + Array(repeating: digits[digits.count - 1], count: head)
    }

    /// The midpoint of the fractions a < b (b nil: past every fraction), after David Greenspan's
    /// "Implementing Fractional Indexing": keep the common prefix, then take a digit halfway between
    /// the first differing ones, or recurse one digit further when they are adjacent.
    private static func midpoint(_ a: [UInt8], _ b: [UInt8]?) -> [UInt8] {
        if let b {
            var n = 0
            while n < b.count, (n < a.count ? a[n] : digits[0]) == b[n] { n += 1 }
            if n > 0 { return Array(b[0..<n]) + midpoint(Array(a.dropFirst(n)), Array(b.dropFirst(n))) }
        }
        let low = a.first.flatMap(value) ?? 0
        let high = b.flatMap { $0.first.flatMap(value) } ?? digits.count
        if high - low > 1 { return [digits[(low + high) / 2]] }
        if let b, b.count > 1 { return [b[0]] }
        return [digits[low]] + midpoint(Array(a.dropFirst()), nil)
    }
}
