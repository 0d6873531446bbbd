#if canImport(Glibc)
import Glibc
#endif

/// Every socket system call of PeerChannel, in one place: EINTR is retried here, and failures become
/// `.connectionFailed` errors that name the call and errno.
enum SocketCalls {
    static func failure(_ call: String, _ detail: String = "") -> PeerChannelError {
        let reason = String(cString: strerror(errno))
        return PeerChannelError(.connectionFailed, "\(call)\(detail.isEmpty ? "" : " \(detail)") failed: \(reason)")
    }

    /// A non-blocking, close-on-exec TCP socket for `address`'s family (IPv4 or IPv6).
    static func tcpSocket(for address: SocketAddress) throws(PeerChannelError) -> Int32 {
        let descriptor = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw failure("socket") }
        return descriptor
    }

    /// Sends each write as soon as it is made (no Nagle delay): the channel already writes whole
    /// batches of frames, and a request's short last frame must not wait for the acknowledgement of
    /// the frames before it.
    static func sendImmediately(_ descriptor: Int32) {
        var on: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
    }

    static func bindAndListen(_ descriptor: Int32, to address: SocketAddress, backlog: Int32) throws(PeerChannelError) {
        var reuse: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        if address.isIPv6 {
            // An IPv6 listener takes IPv6 only ([::] does not also take IPv4 here): one address, one family.
            _ = setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &reuse, socklen_t(MemoryLayout<Int32>.size))
        }
        let bound = address.withSockaddr { bind(descriptor, $0, $1) }
        guard bound == 0 else { throw failure("bind", "to \(address)") }
        guard listen(descriptor, backlog) == 0 else { throw failure("listen", "on \(address)") }
    }

    /// The local address a socket is bound to (the port the system picked for port 0).
    static func localAddress(_ descriptor: Int32) throws(PeerChannelError) -> SocketAddress {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard status == 0, let local = SocketAddress(address) else { throw failure("getsockname") }
        return local
    }

    /// Accepts one connection, or nil if none is waiting (EAGAIN).
    static func accept(_ descriptor: Int32) throws(PeerChannelError) -> (Int32, SocketAddress)? {
        while true {
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let accepted = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.accept(descriptor, $0, &length)
                }
            }
            if accepted >= 0 {
                // Glibc's module does not export accept4; set the same flags on the new socket.
                _ = fcntl(accepted, F_SETFD, FD_CLOEXEC)
                _ = fcntl(accepted, F_SETFL, fcntl(accepted, F_GETFL) | O_NONBLOCK)
                // A TCP listener of either family only accepts peers of its family, which always parse.
                return (accepted, SocketAddress(address) ?? SocketAddress(host: "0.0.0.0", port: 0))
            }
            if errno == EINTR || errno == ECONNABORTED { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return nil }
            throw failure("accept")
        }
    }

    /// Starts a non-blocking connect; true if it completed at once.
    static func startConnect(_ descriptor: Int32, to address: SocketAddress) throws(PeerChannelError) -> Bool {
        let status = address.withSockaddr { connect(descriptor, $0, $1) }
        if status == 0 { return true }
        guard errno == EINPROGRESS || errno == EINTR else { throw failure("connect", "to \(address)") }
        return false
    }

    /// The outcome of a non-blocking connect once the socket is writable.
    static func finishConnect(_ descriptor: Int32, to address: SocketAddress) throws(PeerChannelError) {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else { throw failure("getsockopt") }
        guard error == 0 else {
            errno = error
            throw failure("connect", "to \(address)")
        }
    }

    /// Waits until `descriptor` is ready for `events` or `milliseconds` pass; false on timeout.
    static func wait(_ descriptor: Int32, for events: Int16, milliseconds: Int32) throws(PeerChannelError) -> Bool {
        var entry = pollfd(fd: descriptor, events: events, revents: 0)
        while true {
            let ready = poll(&entry, 1, milliseconds)
            if ready > 0 { return true }
            if ready == 0 { return false }
            if errno != EINTR { throw failure("poll") }
        }
    }

    /// Waits until any of `descriptors` is readable (or hung up) or `milliseconds` pass; the
    /// indices of those that are.
    static func readable(_ descriptors: [Int32], milliseconds: Int32) throws(PeerChannelError) -> [Int] {
        var entries = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        while true {
            let ready = poll(&entries, nfds_t(entries.count), milliseconds)
            if ready > 0 { return entries.indices.filter { entries[$0].revents != 0 } }
            if ready == 0 { return [] }
            if errno != EINTR { throw failure("poll") }
        }
    }

    /// Reads what is available into `buffer`: the count, 0 at end of stream, nil if nothing yet.
    static func read(_ descriptor: Int32, into buffer: inout [UInt8]) throws(PeerChannelError) -> Int? {
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count >= 0 { return count }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return nil }
            throw failure("read")
        }
    }

    /// Writes some of `bytes`; returns how many (0 if the socket cannot take any now).
    static func write(_ descriptor: Int32, _ bytes: ArraySlice<UInt8>) throws(PeerChannelError) -> Int {
        while true {
            let count = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count >= 0 { return count }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return 0 }
            throw failure("send")
        }
    }

    static func close(_ descriptor: Int32) { _ = Glibc.close(descriptor) }

    // MARK: UDP (announcements, SECURITY.md §9.10)

    /// A non-blocking, close-on-exec UDP socket that may send to a broadcast address and shares its
    /// port with other listeners (several programs may listen for announcements on one machine).
    static func udpSocket(for address: SocketAddress = SocketAddress(host: "0.0.0.0", port: 0)) throws(PeerChannelError) -> Int32 {
        let descriptor = socket(address.family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw failure("socket") }
        var on: Int32 = 1
        for option in [SO_BROADCAST, SO_REUSEADDR, SO_REUSEPORT] {
            _ = setsockopt(descriptor, SOL_SOCKET, option, &on, socklen_t(MemoryLayout<Int32>.size))
        }
        return descriptor
    }

    static func bindDatagram(_ descriptor: Int32, to address: SocketAddress) throws(PeerChannelError) {
        let bound = address.withSockaddr { Glibc.bind(descriptor, $0, $1) }
        guard bound == 0 else { throw failure("bind", "to \(address)") }
    }

    /// Sends one datagram; a full send buffer drops it (announcements repeat anyway).
    static func sendDatagram(_ descriptor: Int32, _ datagram: [UInt8], to address: SocketAddress) throws(PeerChannelError) {
        let sent = datagram.withUnsafeBytes { bytes in
            address.withSockaddr { sendto(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), $0, $1) }
        }
        guard sent >= 0 || errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else { throw failure("sendto", "to \(address)") }
    }

    /// The next datagram and its sender, or nil if none is waiting. A datagram longer than
    /// `maximum` comes back as `maximum + 1` bytes, so the caller can refuse it as too long.
    static func receiveDatagram(_ descriptor: Int32, maximum: Int) throws(PeerChannelError) -> (datagram: [UInt8], sender: SocketAddress)? {
        var buffer = [UInt8](repeating: 0, count: maximum + 1)
        while true {
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let count = buffer.withUnsafeMutableBytes { bytes in
                withUnsafeMutablePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(descriptor, bytes.baseAddress, bytes.count, 0, $0, &length) }
                }
            }
            // A datagram from a family we do not speak is no announcement: skip it.
            if count >= 0, let sender = SocketAddress(address) { return (Array(buffer.prefix(count)), sender) }
            if count >= 0 { continue }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return nil }
            throw failure("recvfrom")
        }
    }

    /// Ends both directions without closing the descriptor (see `SocketShutdown`).
    static func shutdown(_ descriptor: Int32) { _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR)) }
}
