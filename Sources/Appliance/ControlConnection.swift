import CProcessHardening
import CryptoVault
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A local connection carrying control messages, each framed as a u32 big-endian length and the
/// encoded message (SECURITY.md §10.6). A whole frame, length and body together, must arrive within
/// `timeoutSeconds` (or before the deadline the caller gives), and a whole frame sent must be taken
/// within the same time: a peer that drips bytes holds a daemon thread no longer than a silent one.
public final class ControlConnection: Sendable {
    private let descriptor: Int32
    public let timeoutSeconds: Double

    init(descriptor: Int32, timeoutSeconds: Double) {
        self.descriptor = descriptor
        self.timeoutSeconds = timeoutSeconds
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

    /// Sends one frame whose body is `head` followed by `tail`, written straight from the caller's
    /// memory: the daemon sends plaintext so, from the session's locked buffer, without copying it
    /// into an ordinary array that would outlive the read in the heap (SECURITY.md §10.6).
    public func send(head: [UInt8], tail: UnsafeRawBufferPointer) throws(ApplianceError) {
        let count = head.count + tail.count
        guard count <= ControlMessage.maximumEncodedSize else {
            throw ApplianceError(.messageTooLarge, "a control message is limited to \(ControlMessage.maximumEncodedSize) bytes")
        }
        let length = UInt32(count)
        let deadline = VaultClock.system.date().addingTimeInterval(timeoutSeconds)
        let prefix = [UInt8(length >> 24), UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff)] + head
        try writeAll(prefix, until: deadline)
        try writeAll(tail, until: deadline)
    }

    /// Hands the other side these descriptors (SCM_RIGHTS, on one byte after the last frame): a
    /// client's standard streams and working directory for a command the daemon runs (§10.8).
    public func sendDescriptors(_ descriptors: [Int32]) throws(ApplianceError) {
        try wait(for: POLLOUT, until: VaultClock.system.date().addingTimeInterval(timeoutSeconds), "the other side did not take the descriptors")
        guard process_hardening_send_descriptors(descriptor, descriptors, Int32(descriptors.count)) == 0 else {
            throw LocalSocket.failure("sendmsg (descriptors) on", "the control connection")
        }
    }

    /// Receives exactly `count` descriptors sent by `sendDescriptors`, before `deadline`. Anything
    /// else (none, more, a closed connection) is refused, and what came is closed.
    public func receiveDescriptors(count: Int, before deadline: Date) throws(ApplianceError) -> [Int32] {
        try waitReadable(until: deadline)
        var descriptors = [Int32](repeating: -1, count: 8)
        var received: Int32 = 0
        let status = process_hardening_receive_descriptors(descriptor, &descriptors, Int32(descriptors.count), &received)
        if status == 0 { throw ApplianceError(.connectionClosed, "the other side closed the connection") }
        guard status == 1 else { throw LocalSocket.failure("recvmsg (descriptors) on", "the control connection") }
        let taken = Array(descriptors.prefix(Int(received)))
        guard taken.count == count else {
            taken.forEach { close($0) }
            throw ApplianceError(.invalidRequest, "a command request must pass \(count) descriptors (standard input, output, error and the working directory); it passed \(taken.count)")
        }
        return taken
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

    /// Receives one frame, which must arrive whole within `timeoutSeconds`.
    public func receive() throws(ApplianceError) -> ControlMessage {
        try receive(before: VaultClock.system.date().addingTimeInterval(timeoutSeconds))
    }

    /// Receives one frame, which must arrive whole (length and body) before `deadline`.
    public func receive(before deadline: Date) throws(ApplianceError) -> ControlMessage {
        let header = try readExactly(4, until: deadline)
        let length = header.reduce(0) { $0 << 8 | Int($1) }
        guard length <= ControlMessage.maximumEncodedSize else {
            throw ApplianceError(.messageTooLarge, "the other side announced a control frame of \(length) bytes (at most \(ControlMessage.maximumEncodedSize))")
        }
        return try ControlMessage(parsing: try readExactly(length, until: deadline))
    }

    private func readExactly(_ count: Int, until deadline: Date) throws(ApplianceError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        var filled = 0
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
        try wait(for: POLLIN, until: deadline, "the other side did not send a whole message within \(Self.seconds(timeoutSeconds))")
    }

    private func wait(for event: Int32, until deadline: Date, _ timeoutMessage: @autoclosure () -> String) throws(ApplianceError) {
        while true {
            let milliseconds = Int32(clamping: Int(max(0, deadline.timeIntervalSinceNow) * 1000))
            var entry = pollfd(fd: descriptor, events: Int16(event), revents: 0)
            let ready = poll(&entry, 1, milliseconds)
            if ready > 0 { return }
            if ready == 0 { throw ApplianceError(.timedOut, timeoutMessage()) }
            if errno != EINTR { throw LocalSocket.failure("poll on", "the control connection") }
        }
    }

    private static func seconds(_ value: Double) -> String {
        value >= 1 ? "\(Int(value)) s" : "\(Int(value * 1000)) ms"
    }

    private func writeAll(_ bytes: [UInt8]) throws(ApplianceError) {
        try writeAll(bytes, until: VaultClock.system.date().addingTimeInterval(timeoutSeconds))
    }

    private func writeAll(_ bytes: [UInt8], until deadline: Date) throws(ApplianceError) {
        try writeAll(count: bytes.count, until: deadline) { offset in
            bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
        }
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer, until deadline: Date) throws(ApplianceError) {
        guard let base = bytes.baseAddress else { return }
        try writeAll(count: bytes.count, until: deadline) { offset in
            Glibc.send(descriptor, base + offset, bytes.count - offset, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
        }
    }

    /// Sends `total` bytes, `sendFrom(offset)` sending what it can from `offset` without waiting, all
    /// before `deadline`: a peer that takes a frame a few bytes at a time cannot stretch one send
    /// beyond it.
    private func writeAll(count total: Int, until deadline: Date, _ sendFrom: (Int) -> Int) throws(ApplianceError) {
        var sent = 0
        while sent < total {
            try wait(for: POLLOUT, until: deadline, "the other side did not take a whole message within \(Self.seconds(timeoutSeconds))")
            let count = sendFrom(sent)
            if count > 0 { sent += count; continue }
            if count < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) { continue }
            if count < 0 && (errno == EPIPE || errno == ECONNRESET) {
                throw ApplianceError(.connectionClosed, "the other side closed the connection")
            }
            throw LocalSocket.failure("send on", "the control connection")
        }
    }
}
