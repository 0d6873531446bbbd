#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 address and TCP port written "ADDR:PORT" (`192.168.1.20:7420`). Parsed strictly: a
/// dotted quad that `inet_pton` accepts, a colon, and a decimal port in 0...65535 without leading zeros
/// (0 only for listening: the system picks a free port).
public struct SocketAddress: Sendable, Equatable, CustomStringConvertible {
    public let host: String
    public let port: UInt16

    public init(parsing text: String) throws(PeerChannelError) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let port = Self.port(parts[1]), Self.ipv4(String(parts[0])) != nil else {
            throw PeerChannelError(.invalidConfiguration, "'\(text)' is not an IPv4 ADDR:PORT such as 192.168.1.20:7420")
        }
        self.host = String(parts[0])
        self.port = port
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
