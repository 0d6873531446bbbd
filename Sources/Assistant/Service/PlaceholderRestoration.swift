import Foundation
import PrivilegedSession

/// Puts back, on the vault's side, what redaction took out of a prompt, where the model's answer
/// repeats a placeholder. The funnel numbers placeholders for a model call (`[EMAIL-1]`, `[PHONE-2]`,
/// SECURITY.md §17.1): each number stands for one distinct value of the prompt, so two addresses are
/// `[EMAIL-1]` and `[EMAIL-2]` and each comes back as itself. A placeholder the prompt did not hold
/// (one the model made up, `[EMAIL-9]`, or `[EMAIL]`) is left as the model wrote it: it is restored
/// to nothing. Restored text never leaves the vault: it goes into the branch the answer becomes, in
/// the project's compartment.
struct PlaceholderRestoration {
    /// Per placeholder, the value it stands for (the funnel's `redactions`).
    let values: [String: String]

    init(redactions: [String: [UInt8]]) {
        values = redactions.mapValues { String(decoding: $0, as: UTF8.self) }
    }

    /// One pass over the answer's UTF-8 (bytes, not characters: a combining mark after a placeholder
    /// must not hide its closing bracket): each `[`…`]` of at most 34 bytes that is exactly a
    /// placeholder becomes its value. A restored value is never read again, so a value that happens
    /// to contain placeholder-like text cannot make a second substitution.
    func restore(_ answer: String) -> String {
        guard !values.isEmpty else { return answer }
        let bytes = Array(answer.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "["), let close = bytes[index..<min(bytes.count, index + 34)].firstIndex(of: UInt8(ascii: "]")),
               let value = values[String(decoding: bytes[index...close], as: UTF8.self)] {
                output.append(contentsOf: value.utf8)
                index = close + 1
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
