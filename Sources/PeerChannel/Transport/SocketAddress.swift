#if canImport(Glibc)
import Glibc
#endif

/// An IP address and TCP port written "ADDR:PORT": `192.168.1.20:7420`, an IPv6 literal in brackets
/// `[::1]:7420` or `[fd00::2]:7420` (RFC 3986's form, so the port's colon cannot be misread), or a
/// host name such as `desk.local:7420`, resolved to its first IPv4 address, else its first IPv6 one.
/// Parsed strictly: an address that `inet_pton` accepts or a host name, a colon, and a decimal port
/// in 0...65535 without leading zeros (0 only for listening: the system picks a free port). IPv6
/// zone ids (`%eth0`) are not taken: a link-local peer is reached by a routable or ULA address.
public struct SocketAddress: Sendable, Equatable, CustomStringConvertible {
    /// The address in its canonical text form, without brackets ("127.0.0.1", "::1").
    public let host: String
    public let port: UInt16

    public init(parsing text: String) throws(PeerChannelError) {
        let refusal = PeerChannelError(.invalidConfiguration,
                                       "'\(text)' is not an ADDR:PORT with an IPv4 address, an IPv6 address in brackets "
                                       + "or a host name, such as 192.168.1.20:7420, [fd00::2]:7420 or desk.local:7420")
        guard let colon = text.lastIndex(of: ":"), let port = Self.port(text[text.index(after: colon)...]) else { throw refusal }
        let host = String(text[..<colon])
        if host.hasPrefix("[") {
            guard host.hasSuffix("]"), host.count > 2, let canonical = Self.canonicalIPv6(String(host.dropFirst().dropLast())) else {
                throw refusal
            }
            self.host = canonical
        } else if host.contains(":") {
            throw PeerChannelError(.invalidConfiguration,
                                   "'\(text)' is ambiguous: put an IPv6 address in brackets before the port, as in [::1]:7420")
        } else if Self.ipv4(host) != nil {
            self.host = host
        } else if Self.isHostName(host) {
            // A host name (desk.local, localhost) is resolved once, here, to the address used. One
            // that does not resolve is a device that cannot be reached, not a mistyped form (F17-8).
            guard let resolved = Self.resolve(host) else {
                throw PeerChannelError(.connectionFailed, "the host name '\(host)' does not resolve to an address: check the name, "
                                       + "or give the device's IP address, such as 192.168.1.20:\(port)")
            }
            self.host = resolved
        } else {
            throw refusal
        }
        self.port = port
    }

    /// Whether `host` has a host name's form: letters, digits, '-' and '.', at most 253 bytes, not
    /// starting with '-' or '.', and not digits and dots alone (a malformed IPv4 address).
    private static func isHostName(_ host: String) -> Bool {
        (1...253).contains(host.utf8.count) && host.first != "-" && host.first != "."
            && host.utf8.allSatisfy({ $0 == 0x2d || $0 == 0x2e || (0x30...0x39).contains($0) || (0x41...0x5a).contains($0) || (0x61...0x7a).contains($0) })
            && !host.utf8.allSatisfy({ $0 == 0x2e || (0x30...0x39).contains($0) })
    }

    /// The first IPv4 address of a host name, else its first IPv6 address, or nil.
    private static func resolve(_ host: String) -> String? {
        resolve(host, family: AF_INET) ?? resolve(host, family: AF_INET6)
    }

    private static func resolve(_ host: String, family: Int32) -> String? {
        var hints = addrinfo()
        hints.ai_family = family
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var results: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &results) == 0, let first = results else { return nil }
        defer { freeaddrinfo(results) }
        guard let address = first.pointee.ai_addr, first.pointee.ai_family == family else { return nil }
        if family == AF_INET {
            return SocketAddress(address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee }).host
        }
        return SocketAddress(address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee }).host
    }

    init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Whether this is an IPv6 address (its text form has colons; an IPv4 one never does).
    public var isIPv6: Bool { host.contains(":") }

    /// The address family for `socket(2)`.
    var family: Int32 { isIPv6 ? AF_INET6 : AF_INET }

    /// "192.168.1.20:7420" or "[::1]:7420", which `init(parsing:)` reads back.
    public var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    private static func port(_ text: Substring) -> UInt16? {
        guard (1...5).contains(text.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
              text == "0" || text.first != "0" else { return nil }
        return UInt16(text)
    }

    static func ipv4(_ host: String) -> in_addr? {
        var address = in_addr()
        return inet_pton(AF_INET, host, &address) == 1 ? address : nil
    }

    static func ipv6(_ host: String) -> in6_addr? {
        var address = in6_addr()
        return inet_pton(AF_INET6, host, &address) == 1 ? address : nil
    }

    /// The text `inet_ntop` gives for an IPv6 literal (so "0:0::1" and "::1" are one address), or nil.
    private static func canonicalIPv6(_ literal: String) -> String? {
        guard let address = ipv6(literal) else { return nil }
        var sockaddr = sockaddr_in6()
        sockaddr.sin6_addr = address
        return SocketAddress(sockaddr).host
    }

    /// Calls `body` with this address as a `sockaddr` of the right family and its length, for bind,
    /// connect and sendto.
    func withSockaddr<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        if isIPv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            address.sin6_addr = Self.ipv6(host) ?? in6_addr()
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr = Self.ipv4(host) ?? in_addr()
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    /// The address a kernel call filled in (accept, getsockname, recvfrom), of either family; nil
    /// for any other family.
    init?(_ storage: sockaddr_storage) {
        var copy = storage
        switch Int32(storage.ss_family) {
        case AF_INET: self.init(withUnsafePointer(to: &copy) { $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee } })
        case AF_INET6: self.init(withUnsafePointer(to: &copy) { $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee } })
        default: return nil
        }
    }

    init(_ address: sockaddr_in) {
        var copy = address.sin_addr
        var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        _ = inet_ntop(AF_INET, &copy, &text, socklen_t(text.count))
        self.init(host: Self.string(text), port: UInt16(bigEndian: address.sin_port))
    }

    init(_ address: sockaddr_in6) {
        var copy = address.sin6_addr
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        _ = inet_ntop(AF_INET6, &copy, &text, socklen_t(text.count))
        self.init(host: Self.string(text), port: UInt16(bigEndian: address.sin6_port))
    }

    private static func string(_ text: [CChar]) -> String {
        String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
