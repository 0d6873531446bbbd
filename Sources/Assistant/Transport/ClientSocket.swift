import CryptoVault
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Every socket call of the HTTP client, in one place: non-blocking, close-on-exec, each wait bounded
/// by a deadline with poll(2), EINTR retried here, failures as errors that name the call and errno.
/// One instance is one connection; it is closed when released.
final class ClientSocket {
    private let descriptor: Int32

    /// Connects to `endpoint`, giving up at `deadline`.
    init(connectingTo endpoint: HTTPEndpoint, until deadline: MonotonicDeadline) throws(AssistantError) {
        let family = endpoint.isIPv6 ? AF_INET6 : AF_INET
        let descriptor = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Self.failure("socket") }
        self.descriptor = descriptor
        var on: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        let status = endpoint.isIPv6 ? Self.connectIPv6(descriptor, endpoint) : Self.connectIPv4(descriptor, endpoint)
        if status != 0 {
            // A connect interrupted by a signal goes on in the background: EINTR is waited on like EINPROGRESS.
            guard errno == EINPROGRESS || errno == EINTR else { throw Self.failure("connect to \(endpoint.hostField)") }
            guard Self.wait(descriptor, for: Int16(POLLOUT), until: deadline) else {
                throw AssistantError(.timedOut, "connecting to \(endpoint.hostField) took too long")
            }
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            _ = getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &length)
            guard error == 0 else {
                throw AssistantError(.connectionFailed, "connect to \(endpoint.hostField) failed: \(String(cString: strerror(error)))")
            }
        }
    }

    deinit { _ = Glibc.close(descriptor) }

    /// Sends all of `bytes`, giving up at `deadline`.
    func send(_ bytes: [UInt8], until deadline: MonotonicDeadline) throws {
        try bytes.withUnsafeBytes { try send($0, until: deadline) }
    }

    /// Sends bytes where they lie (a secret header value in locked memory is never copied out).
    func send(_ bytes: UnsafeRawBufferPointer, until deadline: MonotonicDeadline) throws(AssistantError) {
        var sent = 0
        while sent < bytes.count {
            let count = Glibc.send(descriptor, bytes.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
            if count > 0 { sent += count; continue }
            if count < 0, errno == EINTR { continue }
            guard count < 0, errno == EAGAIN || errno == EWOULDBLOCK else { throw Self.failure("send") }
            guard Self.wait(descriptor, for: Int16(POLLOUT), until: deadline) else { throw AssistantError(.timedOut, "sending the request took too long") }
        }
    }

    /// Reads what arrives before `deadline` into `buffer`: the count, 0 at the end of the stream.
    func receive(into buffer: inout [UInt8], until deadline: MonotonicDeadline) throws(AssistantError) -> Int {
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count >= 0 { return count }
            if errno == EINTR { continue }
            guard errno == EAGAIN || errno == EWOULDBLOCK else { throw Self.failure("recv") }
            guard Self.wait(descriptor, for: Int16(POLLIN), until: deadline) else { throw AssistantError(.timedOut, "the provider stopped sending") }
        }
    }

    private static func failure(_ call: String) -> AssistantError {
        AssistantError(.connectionFailed, "\(call) failed: \(String(cString: strerror(errno)))")
    }

    private static func connectIPv4(_ descriptor: Int32, _ endpoint: HTTPEndpoint) -> Int32 {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = endpoint.port.bigEndian
        _ = inet_pton(AF_INET, endpoint.address, &address.sin_addr)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    private static func connectIPv6(_ descriptor: Int32, _ endpoint: HTTPEndpoint) -> Int32 {
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_port = endpoint.port.bigEndian
        _ = inet_pton(AF_INET6, endpoint.address, &address.sin6_addr)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
        }
    }

    /// Waits for `events` until `deadline`; false when it passes first.
    static func wait(_ descriptor: Int32, for events: Int16, until deadline: MonotonicDeadline) -> Bool {
        var entry = pollfd(fd: descriptor, events: events, revents: 0)
        while true {
            let milliseconds = deadline.remainingMilliseconds()
            guard milliseconds > 0 else { return false }
            let ready = poll(&entry, 1, milliseconds)
            if ready > 0 { return true }
            if ready < 0 && errno != EINTR { return false }
        }
    }
}
