/// Email addresses (the common RFC 5321 subset): a local part of letters, digits and ._%+- (not
/// starting or ending with a dot, no two dots in a row, at most 64 bytes), "@", and a domain of at
/// least two dot-separated labels of letters, digits and inner hyphens (each at most 63 bytes, the
/// whole at most 253), whose last label, the top-level domain, is 2 to 24 letters.
///
/// Quoted local parts and internationalised (non-ASCII) addresses are not recognised.
enum EmailDetector {
    static let maximumLocalLength = 64
    static let maximumDomainLength = 253
    static let maximumLabelLength = 63
    static let topLevelDomainLengths = 2...24

    /// The address around the "@" at `at`, if there is one.
    static func match(_ bytes: UnsafeBufferPointer<UInt8>, at: Int) -> Range<Int>? {
        guard let start = localPartStart(bytes, at: at), let end = domainEnd(bytes, from: at + 1) else { return nil }
        return start..<end
    }

    private static func isLocalByte(_ byte: UInt8) -> Bool {
        ASCIIBytes.isAlphanumeric(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "%")
            || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
    }

    /// Walks back from the "@" over local-part bytes; the part must not start or end with a dot or hold "..".
    private static func localPartStart(_ bytes: UnsafeBufferPointer<UInt8>, at: Int) -> Int? {
        var start = at
        while start > 0, at - start < maximumLocalLength, isLocalByte(bytes[start - 1]) { start -= 1 }
        // Sentence punctuation before an address ("...(jo@x.org)" or "list:.jo@x.org") is not part of it.
        while start < at, bytes[start] == UInt8(ascii: ".") { start += 1 }
        guard start < at, bytes[at - 1] != UInt8(ascii: "."), start == 0 || !isLocalByte(bytes[start - 1]) || bytes[start - 1] == UInt8(ascii: ".") else {
            return nil
        }
        for index in start..<(at - 1) where bytes[index] == UInt8(ascii: ".") && bytes[index + 1] == UInt8(ascii: ".") { return nil }
        return start
    }

    /// Walks the domain labels after the "@"; a final dot (end of a sentence) is left out.
    private static func domainEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var position = start
        var labels = 0
        var lastLabel = start..<start
        while true {
            let labelStart = position
            while position < bytes.count, position - labelStart <= maximumLabelLength,
                  ASCIIBytes.isAlphanumeric(bytes[position]) || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            let label = labelStart..<position
            guard isLabel(bytes, label), position - start <= maximumDomainLength else { break }
            labels += 1
            lastLabel = label
            guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "."), ASCIIBytes.isAlphanumeric(bytes[position + 1]) else { break }
            position += 1
        }
        let end = lastLabel.upperBound
        guard labels >= 2, isTopLevelDomain(bytes, lastLabel), !NumberRun.isGlued(bytes, after: end) || bytes[end] == UInt8(ascii: ".") else {
            return nil
        }
        return end
    }

    private static func isLabel(_ bytes: UnsafeBufferPointer<UInt8>, _ label: Range<Int>) -> Bool {
        !label.isEmpty && label.count <= maximumLabelLength && bytes[label.lowerBound] != UInt8(ascii: "-")
            && bytes[label.upperBound - 1] != UInt8(ascii: "-")
    }

    private static func isTopLevelDomain(_ bytes: UnsafeBufferPointer<UInt8>, _ label: Range<Int>) -> Bool {
        topLevelDomainLengths.contains(label.count) && label.allSatisfy { ASCIIBytes.isLetter(bytes[$0]) }
    }
}
