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
