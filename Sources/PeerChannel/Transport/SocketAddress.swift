#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 address and TCP port written "ADDR:PORT" (`192.168.1.20:7420`, or a host name such as
/// `desk.local:7420`, resolved to its first IPv4 address). Parsed strictly: a dotted quad that
/// `inet_pton` accepts or a host name, a colon, and a decimal port in 0...65535 without leading zeros
/// (0 only for listening: the system picks a free port).
public struct SocketAddress: Sendable, Equatable, CustomStringConvertible {
    public let host: String
    public let port: UInt16

    public init(parsing text: String) throws(PeerChannelError) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        let refusal = PeerChannelError(.invalidConfiguration,
                                       "'\(text)' is not an ADDR:PORT with an IPv4 address or a host name, such as 192.168.1.20:7420 "
                                       + "(IPv6 is not supported yet)")
        guard parts.count == 2, let port = Self.port(parts[1]) else { throw refusal }
        let host = String(parts[0])
        if Self.ipv4(host) != nil {
            self.host = host
        } else if let resolved = Self.resolve(host) {
            // A host name (desk.local, localhost) is resolved once, here, to the IPv4 address used.
            self.host = resolved
        } else {
            throw refusal
        }
        self.port = port
    }

    /// The first IPv4 address of a host name (letters, digits, '-' and '.', at most 253 bytes), or nil.
    private static func resolve(_ host: String) -> String? {
        guard (1...253).contains(host.utf8.count), host.first != "-", host.first != ".",
              host.utf8.allSatisfy({ $0 == 0x2d || $0 == 0x2e || (0x30...0x39).contains($0) || (0x41...0x5a).contains($0) || (0x61...0x7a).contains($0) }),
              !host.utf8.allSatisfy({ $0 == 0x2e || (0x30...0x39).contains($0) }) else { return nil }
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var results: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &results) == 0, let first = results else { return nil }
        defer { freeaddrinfo(results) }
        guard let address = first.pointee.ai_addr, first.pointee.ai_family == AF_INET else { return nil }
        let inet = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee }
        return SocketAddress(inet).host
    }

    init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    public var description: String { "\(host):\(port)" }

    private static func port(_ text: Substring) -> UInt16? {
        guard (1...5).contains(text.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
              text == "0" || text.first != "0" else { return nil }
        return UInt16(text)
    }

    static func ipv4(_ host: String) -> in_addr? {
        var address = in_addr()
        return inet_pton(AF_INET, host, &address) == 1 ? address : nil
    }

    /// The sockaddr_in of this address.
    var socketAddress: sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr = Self.ipv4(host) ?? in_addr()
        return address
    }

    init(_ address: sockaddr_in) {
        var copy = address.sin_addr
        var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        _ = inet_ntop(AF_INET, &copy, &text, socklen_t(text.count))
        self.init(host: String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self),
                  port: UInt16(bigEndian: address.sin_port))
    }
}
