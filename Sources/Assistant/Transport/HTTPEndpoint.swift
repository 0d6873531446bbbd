import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where a provider listens: `http://HOST[:PORT][/PATH]`, HOST an IPv4 literal, a bracketed IPv6
/// literal or `localhost`. The client speaks plain HTTP, so it goes only where the network is the
/// owner's: loopback, or a private or link-local address (RFC 1918, RFC 6890, fc00::/7, fe80::/10).
/// A public address is refused until the client speaks TLS; a host name other than `localhost` is
/// refused too, since resolving one is a blocking call we cannot bound, and a name can be pointed
/// anywhere after it was checked.
public struct HTTPEndpoint: Sendable, Equatable, CustomStringConvertible {
    public enum Reach: String, Sendable {
        /// This machine (127.0.0.0/8, ::1).
        case loopback
        /// The local network (a private or link-local address).
        case privateNetwork = "private-network"
    }

    /// The address to connect to, as text (`127.0.0.1`, `::1`).
    public let address: String
    public let isIPv6: Bool
    public let port: UInt16
    /// The path prefix, without a trailing slash ("" or "/v1").
    public let basePath: String
    public let reach: Reach
    /// What the Host field carries.
    public let hostField: String

    public init(parsing url: String) throws(AssistantError) {
        guard url.utf8.count <= 2048, url.hasPrefix("http://") else {
            throw AssistantError(.invalidEndpoint, "a provider URL is http://HOST[:PORT][/PATH] (TLS is not spoken yet)")
        }
        let rest = url.dropFirst("http://".count)
        let authority = rest.prefix { $0 != "/" }
        var path = String(rest.dropFirst(authority.count))
        while path.hasSuffix("/") { path.removeLast() }
        guard path.utf8.allSatisfy(Self.isPathByte) else {
            throw AssistantError(.invalidEndpoint, "a provider URL's path is visible ASCII with no query or fragment")
        }
        let (host, port) = try Self.split(authority)
        let isIPv6 = host.contains(":")
        let address = host == "localhost" ? "127.0.0.1" : host
        guard let reach = Self.reach(of: address, ipv6: isIPv6) else {
            throw AssistantError(.invalidEndpoint, "\(host) is not a loopback or private-network address (a host name other than localhost, or a public address, is refused)")
        }
        self.address = address
        self.isIPv6 = isIPv6
        self.port = port
        self.basePath = path
        self.reach = reach
        self.hostField = (isIPv6 ? "[\(host)]" : host) + ":\(port)"
    }

    public var description: String { "http://\(hostField)\(basePath)" }

    /// Visible ASCII but '?' and '#' (no query or fragment).
    static func isPathByte(_ byte: UInt8) -> Bool {
        guard byte > 0x20, byte < 0x7F else { return false }
        return byte != 0x3F && byte != 0x23
    }

    static func split(_ authority: Substring) throws(AssistantError) -> (host: String, port: UInt16) {
        guard !authority.contains("@") else { throw AssistantError(.invalidEndpoint, "a provider URL may not carry credentials (use a header, sealed in the vault)") }
        var host: Substring, portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw AssistantError(.invalidEndpoint, "an IPv6 address without its ']'") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { throw AssistantError(.invalidEndpoint, "something after the IPv6 address") }
            portText = after.isEmpty ? nil : after.dropFirst()
        } else {
            let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count) else { throw AssistantError(.invalidEndpoint, "a host with more than one ':' (bracket an IPv6 address)") }
            host = parts[0]
            portText = parts.count == 2 ? parts[1] : nil
        }
        guard !host.isEmpty else { throw AssistantError(.invalidEndpoint, "a provider URL without a host") }
        guard let portText else { return (String(host), 80) }
        guard (1...5).contains(portText.count), portText.allSatisfy(\.isASCII), let port = UInt16(portText), port > 0 else {
            throw AssistantError(.invalidEndpoint, "a port is 1 to 65535")
        }
        return (String(host), port)
    }

    /// Loopback or private for an address literal; nil for anything else (a name, a public address).
    static func reach(of address: String, ipv6: Bool) -> Reach? {
        if ipv6 {
            var bytes = in6_addr()
            guard inet_pton(AF_INET6, address, &bytes) == 1 else { return nil }
            let octets: [UInt8] = withUnsafeBytes(of: bytes) { Array($0) }
            let loopback: [UInt8] = Array(repeating: 0, count: 15) + [1]
            if octets == loopback { return .loopback }
            let first: UInt8 = octets[0], second: UInt8 = octets[1]
            let uniqueLocal = (first & 0xFE) == 0xFC
            let linkLocal = first == 0xFE && (second & 0xC0) == 0x80
            return uniqueLocal || linkLocal ? .privateNetwork : nil
        }
        var bytes = in_addr()
        guard inet_pton(AF_INET, address, &bytes) == 1 else { return nil }
        let octets: [UInt8] = withUnsafeBytes(of: bytes) { Array($0) }
        switch (octets[0], octets[1]) {
        case (127, _): return .loopback
        case (10, _), (192, 168), (169, 254): return .privateNetwork
        case (172, let second) where (16...31).contains(second): return .privateNetwork
        default: return nil
        }
    }
}
