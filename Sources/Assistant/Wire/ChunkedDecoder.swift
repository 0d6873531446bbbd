/// Decodes a chunked body (RFC 9112 §7.1) as its bytes arrive, strictly and with bounds:
///
///     chunked-body = *chunk last-chunk trailer-section CRLF
///     chunk        = chunk-size [ chunk-ext ] CRLF chunk-data CRLF
///     chunk-size   = 1*8HEXDIG
///     last-chunk   = 1*8"0" [ chunk-ext ] CRLF
///     chunk-ext    = ";" at most `maximumLineBytes` bytes of VCHAR / SP / HTAB (ignored)
///     trailer      = field lines, at most `maximumTrailerBytes` in all (ignored)
///
/// Refused: a size of more than 8 hex digits or none, a bare LF or CR, data not followed by CRLF,
/// anything after the final CRLF. How much body in all is the caller's bound.
public struct ChunkedDecoder: Sendable {
    public static let maximumLineBytes = 1024
    public static let maximumTrailerBytes = 8 * 1024

    private enum State: Sendable, Equatable {
        case sizeLine
        case data(remaining: Int)
        case dataEnd
        case trailer
        case finished
    }

    private var state: State = .sizeLine
    private var line: [UInt8] = []
    private var trailerBytes = 0
    private var pendingCR = false

    public init() {}

    public var isFinished: Bool { state == .finished }

    /// The body bytes in `bytes`. Throws at the first byte the grammar refuses.
    public mutating func feed(_ bytes: ArraySlice<UInt8>) throws(AssistantError) -> [UInt8] {
        var output: [UInt8] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            switch state {
            case .data(let remaining):
                let take = min(remaining, bytes.endIndex - index)
                output.append(contentsOf: bytes[index..<(index + take)])
                index += take
                state = remaining - take == 0 ? .dataEnd : .data(remaining: remaining - take)
            case .finished:
                throw AssistantError(.malformedResponse, "bytes after the end of a chunked body")
            case .sizeLine, .dataEnd, .trailer:
                if let complete = try takeLine(bytes[index]) { try endOfLine(complete) }
                index += 1
            }
        }
        return output
    }

    /// Adds one byte to the current line; returns the line (without CRLF) when it ends.
    private mutating func takeLine(_ byte: UInt8) throws(AssistantError) -> [UInt8]? {
        if pendingCR {
            guard byte == 0x0A else { throw AssistantError(.malformedResponse, "a CR not followed by LF in a chunked body") }
            pendingCR = false
            defer { line = [] }
            return line
        }
        if byte == 0x0D { pendingCR = true; return nil }
        if byte == 0x0A { throw AssistantError(.malformedResponse, "a bare LF in a chunked body") }
        guard line.count < Self.maximumLineBytes else { throw AssistantError(.responseTooLarge, "a chunk line over \(Self.maximumLineBytes) bytes") }
        line.append(byte)
        return nil
    }

    private mutating func endOfLine(_ complete: [UInt8]) throws(AssistantError) {
        switch state {
        case .sizeLine:
            let size = try Self.chunkSize(complete)
            state = size == 0 ? .trailer : .data(remaining: size)
        case .dataEnd:
            guard complete.isEmpty else { throw AssistantError(.malformedResponse, "chunk data not followed by CRLF") }
            state = .sizeLine
        case .trailer:
            trailerBytes += complete.count + 2
            guard trailerBytes <= Self.maximumTrailerBytes else { throw AssistantError(.responseTooLarge, "a chunked trailer over \(Self.maximumTrailerBytes) bytes") }
            if complete.isEmpty { state = .finished }
        case .data, .finished:
            break
        }
    }

    static func chunkSize(_ line: [UInt8]) throws(AssistantError) -> Int {
        let digits = line.prefix { Self.hexValue($0) != nil }
        guard (1...8).contains(digits.count) else { throw AssistantError(.malformedResponse, "a chunk size that is not 1 to 8 hex digits") }
        let rest = line.dropFirst(digits.count)
        if let first = rest.first {
            guard first == UInt8(ascii: ";"), rest.allSatisfy(HTTPResponseHead.isValueByte) else {
                throw AssistantError(.malformedResponse, "a chunk size followed by something other than an extension")
            }
        }
        return digits.reduce(0) { $0 * 16 + Int(Self.hexValue($1)!) }
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}
