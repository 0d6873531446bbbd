import Foundation
import PrivilegedSession

/// Puts back, on the vault's side, what redaction took out of a prompt, where the model's answer
/// repeats a placeholder: `[EMAIL]` in the answer becomes the address the prompt held. The funnel's
/// placeholders are typed but not numbered (SECURITY.md §11.5), so a kind is restored only when the
/// prompt held exactly one distinct value of it; with two addresses, `[EMAIL]` stays as it is (the
/// answer cannot say which one it meant). Restored text never leaves the vault: it goes into the
/// branch the answer becomes, in the project's compartment.
struct PlaceholderRestoration {
    /// Per placeholder, the one value it stands for.
    private(set) var values: [String: String] = [:]

    init(original payload: [UInt8], findings: [LeakHit]) {
        var seen: [LeakKind: Set<[UInt8]>] = [:]
        for (range, kind) in Self.merged(findings) where range.upperBound <= payload.count {
            seen[kind, default: []].insert(Array(payload[range]))
        }
        for (kind, distinct) in seen where distinct.count == 1 {
            values[kind.placeholder] = String(decoding: distinct.first!, as: UTF8.self)
        }
    }

    func restore(_ answer: String) -> String {
        values.reduce(answer) { text, pair in text.replacingOccurrences(of: pair.key, with: pair.value) }
    }

    /// The spans redaction replaced, as the funnel merges them (SECURITY.md §11.5): sorted by start,
    /// overlapping hits joined, each span taking the first kind in `LeakKind` order.
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
