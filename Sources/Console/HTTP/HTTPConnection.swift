import CryptoVault

/// One client connection: reads one request within the limits and deadlines, writes one response,
/// and closes (every response says `Connection: close`, so no request can hide behind another).
struct HTTPConnection {
    let descriptor: Int32
    let parser: HTTPRequestParser
    /// The clock of the request's deadlines.
    var clock: VaultClock = .system
    var limits: HTTPLimits { parser.limits }

    /// The request, whole. A client that sends less than a head within `headSeconds`, or less than its
    /// body within `bodySeconds`, is refused as a timeout; one that sends more than the limits, as too large.
    func readRequest() throws(ConsoleError) -> HTTPRequest {
        var received: [UInt8] = []
        let headDeadline = MonotonicDeadline.after(limits.headSeconds, on: clock)
        var headEnd: Int? = nil
        while headEnd == nil {
            try receive(into: &received, until: headDeadline, upTo: limits.headBytes + 4)
            headEnd = Self.endOfHead(in: received)
            if headEnd == nil && received.count > limits.headBytes {
                throw ConsoleError(.headTooLarge, "the request head is over \(limits.headBytes) bytes")
            }
        }
        let end = headEnd!
        var (request, bodyLength) = try parser.parse(head: Array(received[..<end]))
        var body = Array(received[end...])
        guard body.count <= bodyLength else { throw ConsoleError(.malformedRequest, "more bytes than Content-Length (one request per connection)") }
        let bodyDeadline = MonotonicDeadline.after(limits.bodySeconds, on: clock)
        while body.count < bodyLength {
            try receive(into: &body, until: bodyDeadline, upTo: bodyLength)
        }
        request.body = body
        return request
    }

    /// Appends what the client sends next, at most up to `upTo` bytes in all.
    private func receive(into buffer: inout [UInt8], until deadline: MonotonicDeadline, upTo maximum: Int) throws(ConsoleError) {
        guard LoopbackSocket.wait(descriptor, for: Int16(POLLIN), until: deadline) else {
            throw ConsoleError(.requestTimeout, "the client did not send its request in time")
        }
        var chunk = [UInt8](repeating: 0, count: max(1, min(64 * 1024, maximum - buffer.count)))
        guard let count = try LoopbackSocket.read(descriptor, into: &chunk) else { return }
        guard count > 0 else { throw ConsoleError(.connectionFailed, "the client closed the connection mid-request") }
        buffer += chunk[..<count]
        if buffer.count > maximum { throw ConsoleError(.bodyTooLarge, "more bytes than the request may have") }
    }

    /// The index just after the first CRLF CRLF, or nil.
    static func endOfHead(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count where bytes[index] == 0x0A && bytes[index - 1] == 0x0D && bytes[index - 2] == 0x0A && bytes[index - 3] == 0x0D {
            return index + 1
        }
        return nil
    }

    /// Writes the whole response, or gives up at the deadline.
    func write(_ bytes: [UInt8]) throws(ConsoleError) {
        let deadline = MonotonicDeadline.after(limits.writeSeconds, on: clock)
        var sent = 0
        while sent < bytes.count {
            guard LoopbackSocket.wait(descriptor, for: Int16(POLLOUT), until: deadline) else {
                throw ConsoleError(.connectionFailed, "the client did not take the response in time")
            }
            sent += try LoopbackSocket.write(descriptor, bytes[sent...])
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
