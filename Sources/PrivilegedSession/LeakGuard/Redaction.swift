/// Replacing hits with their placeholders.
///
/// Overlapping hits (a quote that contains a phone number, an email address whose local part looks
/// like a card) become one span, their union, replaced by the placeholder of the highest-priority kind
/// among them (`LeakKind` order: a privileged quote first). Everything outside the hits is copied
/// byte for byte, invalid UTF-8 included.
enum Redaction {
    static func apply(_ hits: [LeakHit], to bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var copied = 0
        for (range, kind) in merged(hits) {
            output.append(contentsOf: bytes[copied..<range.lowerBound])
            output.append(contentsOf: kind.placeholder.utf8)
            copied = range.upperBound
        }
        output.append(contentsOf: bytes[copied..<bytes.count])
        return output
    }

    /// Hits sorted by start and overlapping ones joined, each span with the kind it is redacted as.
    static func merged(_ hits: [LeakHit]) -> [(Range<Int>, LeakKind)] {
        var spans: [(Range<Int>, LeakKind)] = []
        for hit in hits.sorted(by: { $0.range.lowerBound < $1.range.lowerBound }) {
            if let (range, kind) = spans.last, hit.range.lowerBound < range.upperBound {
                spans[spans.count - 1] = (range.lowerBound..<max(range.upperBound, hit.range.upperBound), min(kind, hit.kind))
            } else {
                spans.append((hit.range, hit.kind))
            }
        }
        return spans
    }
}

/// How a redacted payload names what it took out: by kind only (`[EMAIL]`, §11.5), or by kind and a
/// number (`[EMAIL-1]`, `[PHONE-2]`) that stands for one distinct value, so that whoever redacted can
/// put each value back, one to one, where an answer repeats its placeholder (SECURITY.md §17.1).
public enum PlaceholderStyle: Sendable, Equatable {
    case typed
    case numbered
}

extension Redaction {
    /// Numbered redaction: one counter for the whole payload, in order of first appearance; a value
    /// seen again (same kind, same bytes) gets its number again. A number whose placeholder text is
    /// already in the payload is skipped, so a placeholder never stands for two things (the literal
    /// text, and a value). Returns the redacted bytes and, per placeholder, the bytes it replaced.
    static func numbered(_ hits: [LeakHit], in bytes: UnsafeBufferPointer<UInt8>) -> (redacted: [UInt8], values: [String: [UInt8]]) {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var values: [String: [UInt8]] = [:]
        var numbers: [NumberedKey: String] = [:]
        let taken = numberedTexts(in: bytes)
        var next = 1
        var copied = 0
        for (range, kind) in merged(hits) {
            output.append(contentsOf: bytes[copied..<range.lowerBound])
            let value = Array(bytes[range])
            let key = NumberedKey(kind: kind, value: value)
            if numbers[key] == nil {
                var candidate = kind.placeholder(number: next)
                while taken.contains(candidate) { next += 1; candidate = kind.placeholder(number: next) }
                next += 1
                numbers[key] = candidate
                values[candidate] = value
            }
            output.append(contentsOf: numbers[key]!.utf8)
            copied = range.upperBound
        }
        output.append(contentsOf: bytes[copied..<bytes.count])
        return (output, values)
    }

    private struct NumberedKey: Hashable {
        let kind: LeakKind
        let value: [UInt8]
    }

    /// Every bracketed text of at most 32 bytes already in the payload (one pass): the placeholders a
    /// number must not take.
    static func numberedTexts(in bytes: UnsafeBufferPointer<UInt8>) -> Set<String> {
        var found: Set<String> = []
        var index = 0
        while index < bytes.count {
            defer { index += 1 }
            guard bytes[index] == UInt8(ascii: "[") else { continue }
            var end = index + 1
            while end < bytes.count, end - index <= 32, bytes[end] != UInt8(ascii: "]"), bytes[end] != UInt8(ascii: "[") { end += 1 }
            guard end < bytes.count, bytes[end] == UInt8(ascii: "]") else { continue }
            found.insert(String(decoding: bytes[index...end], as: UTF8.self))
        }
        return found
    }
}
