import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A local connection carrying control messages, each framed as a u32 big-endian length and the
/// encoded message (SECURITY.md §10.6). Reads wait at most `timeoutSeconds` for each frame to start
/// and to finish, so a silent peer cannot hold a daemon thread.
public final class ControlConnection: Sendable {
    private let descriptor: Int32
    public let timeoutSeconds: Double

    init(descriptor: Int32, timeoutSeconds: Double) {
        self.descriptor = descriptor
        self.timeoutSeconds = timeoutSeconds
        // A peer that stops reading makes a send fail after the same time instead of blocking forever.
        var limit = timeval(tv_sec: Int(timeoutSeconds), tv_usec: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(descriptor) }

    /// Connects to the daemon listening at `socketPath`.
    public static func connect(to socketPath: String, timeoutSeconds: Double = 30) throws(ApplianceError) -> ControlConnection {
        ControlConnection(descriptor: try LocalSocket.connect(to: socketPath), timeoutSeconds: timeoutSeconds)
    }

    /// The kernel's record of who connected.
    public func peerCredentials() throws(ApplianceError) -> PeerCredentials { try PeerCredentials.of(descriptor) }

    public func send(_ message: ControlMessage) throws(ApplianceError) {
        let body = try message.encoded()
        let length = UInt32(body.count)
        try writeAll([UInt8(length >> 24), UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff)] + body)
    }

    /// Sends a request and returns the reply.
    public func exchange(_ request: ControlMessage) throws(ApplianceError) -> ControlMessage {
        try sendRequest(request)
        return try receive()
    }

    /// Sends a request whose reply the caller then receives. A daemon may answer and close before
    /// reading the request (it refuses other users so), which makes the send fail: the reply is still
    /// there to read, and if there is none, `receive` reports the closed connection.
    public func sendRequest(_ request: ControlMessage) throws(ApplianceError) {
        do {
            try send(request)
        } catch where error.code == .connectionClosed {
            return
        }
    }

    public func receive() throws(ApplianceError) -> ControlMessage {
        let header = try readExactly(4)
        let length = header.reduce(0) { $0 << 8 | Int($1) }
        guard length <= ControlMessage.maximumEncodedSize else {
            throw ApplianceError(.messageTooLarge, "the other side announced a control frame of \(length) bytes (at most \(ControlMessage.maximumEncodedSize))")
        }
        return try ControlMessage(parsing: try readExactly(length))
    }

    private func readExactly(_ count: Int) throws(ApplianceError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        var filled = 0
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while filled < count {
            try waitReadable(until: deadline)
            let read = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress! + filled, count - filled, 0) }
            if read > 0 { filled += read; continue }
            if read == 0 { throw ApplianceError(.connectionClosed, "the other side closed the connection") }
            if errno == EINTR || errno == EAGAIN { continue }
            if errno == ECONNRESET { throw ApplianceError(.connectionClosed, "the other side closed the connection") }
            throw LocalSocket.failure("recv on", "the control connection")
        }
        return buffer
    }

    private func waitReadable(until deadline: Date) throws(ApplianceError) {
        while true {
            let milliseconds = Int32(clamping: Int(max(0, deadline.timeIntervalSinceNow) * 1000))
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, milliseconds)
            if ready > 0 { return }
            if ready == 0 { throw ApplianceError(.timedOut, "the other side said nothing for \(Int(timeoutSeconds)) s") }
            if errno != EINTR { throw LocalSocket.failure("poll on", "the control connection") }
        }
    }

    private func writeAll(_ bytes: [UInt8]) throws(ApplianceError) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            if count > 0 { sent += count; continue }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                throw ApplianceError(.timedOut, "the other side took nothing for \(Int(timeoutSeconds)) s")
            }
            if count < 0 && (errno == EPIPE || errno == ECONNRESET) {
                throw ApplianceError(.connectionClosed, "the other side closed the connection")
            }
            throw LocalSocket.failure("send on", "the control connection")
        }
    }
}
