/// Splits a newline-delimited JSON stream (as Ollama's `/api/chat` sends it) into lines as its bytes
/// arrive: each line ends in LF (a CR before it is dropped), blank lines are skipped, a line is at
/// most `maximumLineBytes` and must be UTF-8. What each line holds is the caller's to parse.
public struct NDJSONLines: Sendable {
    public static let maximumLineBytes = 4 * 1024 * 1024

    private var line: [UInt8] = []

    public init() {}

    /// The lines completed by `bytes`.
    public mutating func feed<Bytes: Collection<UInt8>>(_ bytes: Bytes) throws(AssistantError) -> [String] {
        var lines: [String] = []
        for byte in bytes {
            guard byte == 0x0A else {
                guard line.count < Self.maximumLineBytes else { throw AssistantError(.responseTooLarge, "a stream line over \(Self.maximumLineBytes) bytes") }
                line.append(byte)
                continue
            }
            if line.last == 0x0D { line.removeLast() }
            defer { line = [] }
            guard !line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) else { continue }
            guard let text = String(validating: line, as: UTF8.self) else { throw AssistantError(.malformedStream, "a stream line that is not UTF-8") }
            lines.append(text)
        }
        return lines
    }

    /// Whether an unfinished line is waiting (a stream that ends here was cut, or ended without LF).
    public var isMidLine: Bool { !line.isEmpty }

    /// The unfinished line, for a server that ends its last line at the close without LF.
    public mutating func finish() throws(AssistantError) -> String? {
        defer { line = [] }
        if line.last == 0x0D { line.removeLast() }
        guard !line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) else { return nil }
        guard let text = String(validating: line, as: UTF8.self) else { throw AssistantError(.malformedStream, "a stream line that is not UTF-8") }
        return text
    }
}
