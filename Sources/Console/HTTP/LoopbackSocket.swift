import CryptoVault
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Every socket call of the console's server, in one place: EINTR is retried here, and failures
/// become errors that name the call and errno. The server only ever binds loopback addresses.
enum LoopbackSocket {
    enum Family: Sendable { case ipv4, ipv6 }

    static func failure(_ call: String, _ code: ConsoleErrorCode = .connectionFailed) -> ConsoleError {
        ConsoleError(code, "\(call) failed: \(String(cString: strerror(errno)))")
    }

    /// A listening, non-blocking, close-on-exec socket on 127.0.0.1 or ::1 at `port` (0: one the
    /// system picks). Returns the descriptor and the port it is bound to.
    static func listen(_ family: Family, port: UInt16, backlog: Int32 = 64) throws(ConsoleError) -> (descriptor: Int32, port: UInt16) {
        let domain = family == .ipv4 ? AF_INET : AF_INET6
        let descriptor = socket(domain, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw failure("socket", .listenFailed) }
        var on: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        if family == .ipv6 { _ = setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &on, socklen_t(MemoryLayout<Int32>.size)) }
        let bound = family == .ipv4 ? bindIPv4(descriptor, port: port) : bindIPv6(descriptor, port: port)
        guard bound == 0, Glibc.listen(descriptor, backlog) == 0 else {
            let error = failure(bound == 0 ? "listen" : "bind to \(family == .ipv4 ? "127.0.0.1" : "[::1]"):\(port)", .listenFailed)
            Glibc.close(descriptor)
            throw error
        }
        return (descriptor, try localPort(descriptor))
    }

    private static func bindIPv4(_ descriptor: Int32, port: UInt16) -> Int32 {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(INADDR_LOOPBACK).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    private static func bindIPv6(_ descriptor: Int32, port: UInt16) -> Int32 {
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_port = port.bigEndian
        address.sin6_addr = in6addr_loopback
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
        }
    }

    private static func localPort(_ descriptor: Int32) throws(ConsoleError) -> UInt16 {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard status == 0 else { throw failure("getsockname", .listenFailed) }
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
    }

    /// Accepts one waiting connection (non-blocking, close-on-exec), or nil if none is waiting.
    static func accept(_ descriptor: Int32) -> Int32? {
        while true {
            let accepted = Glibc.accept(descriptor, nil, nil)
            if accepted >= 0 {
                _ = fcntl(accepted, F_SETFD, FD_CLOEXEC)
                _ = fcntl(accepted, F_SETFL, fcntl(accepted, F_GETFL) | O_NONBLOCK)
                return accepted
            }
            if errno == EINTR || errno == ECONNABORTED { continue }
            return nil
        }
    }

    /// The indices of `descriptors` that are readable within `milliseconds`.
    static func readable(_ descriptors: [Int32], milliseconds: Int32) -> [Int] {
        var entries = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        while true {
            let ready = poll(&entries, nfds_t(entries.count), milliseconds)
            if ready > 0 { return entries.indices.filter { entries[$0].revents != 0 } }
            if ready == 0 || errno != EINTR { return [] }
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

    /// Reads what is available into `buffer`: the count, 0 at end of stream, nil if nothing yet.
    static func read(_ descriptor: Int32, into buffer: inout [UInt8]) throws(ConsoleError) -> Int? {
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count >= 0 { return count }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return nil }
            throw failure("read")
        }
    }

    /// Writes some of `bytes`: how many (0 if the socket takes none now).
    static func write(_ descriptor: Int32, _ bytes: ArraySlice<UInt8>) throws(ConsoleError) -> Int {
        while true {
            let count = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count >= 0 { return count }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return 0 }
            throw failure("send")
        }
    }

    static func close(_ descriptor: Int32) { _ = Glibc.close(descriptor) }
}
