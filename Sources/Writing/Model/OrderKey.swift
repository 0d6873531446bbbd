/// Order keys (fractional indexing): strings of base-36 digits (`0`-`9`, `a`-`z`) that sort, byte by
/// byte, in the order their nodes are shown, never ending in `0`. A key can always be made between
/// any two, so inserting or moving a node writes its own key and leaves its siblings' alone: order
/// survives moves, and two devices that insert at once never renumber each other (SECURITY.md §14.2).
public enum OrderKey {
    static let digits = Array("0123456789abcdefghijklmnopqrstuvwxyz".utf8)

    /// The first key of an empty list.
    public static let first = "i"

    /// A key strictly between `lower` and `upper`; nil stands for the start or the end of the list.
    /// Requires `lower < upper` when both are given, and both valid (`isValid`).
    public static func between(_ lower: String?, _ upper: String?) -> String {
        let a = Array((lower ?? "").utf8), b = upper.map { Array($0.utf8) }
        return String(decoding: midpoint(a, b), as: UTF8.self)
    }

    /// Base-36 digits, not empty, not ending in `0`, at most 256 bytes (a hostile row is refused).
    public static func isValid(_ key: String) -> Bool {
        let bytes = Array(key.utf8)
        return !bytes.isEmpty && bytes.count <= 256 && bytes.last != UInt8(ascii: "0") && bytes.allSatisfy { value($0) != nil }
    }

    private static func value(_ digit: UInt8) -> Int? { digits.firstIndex(of: digit) }

    /// The midpoint of the digit strings a < b (b nil: past every key), after David Greenspan's
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
