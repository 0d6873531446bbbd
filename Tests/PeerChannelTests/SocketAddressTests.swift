#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import PeerChannel
import Testing

/// ADDR:PORT as every command takes it: IPv4, bracketed IPv6 literals and host names, strictly.
struct SocketAddressTests {
    @Test("an address reads back as it is written", arguments: ["127.0.0.1:7420", "0.0.0.0:0", "192.168.1.20:65535",
                                                               "[::1]:7420", "[::]:0", "[fd00::2]:65535"])
    func addressesParse(text: String) throws {
        #expect(try SocketAddress(parsing: text).description == text)
    }

    @Test("an IPv6 literal is kept in its canonical form, so one address has one spelling")
    func ipv6IsCanonical() throws {
        let address = try SocketAddress(parsing: "[0:0:0:0:0:0:0:1]:80")
        #expect(address.host == "::1" && address.isIPv6 && address.description == "[::1]:80")
        #expect(try !SocketAddress(parsing: "10.0.0.1:80").isIPv6)
    }

    @Test("a host name is resolved to its IPv4 address")
    func hostNamesResolve() throws {
        #expect(try SocketAddress(parsing: "localhost:7420").description == "127.0.0.1:7420")
    }

    @Test("malformed addresses are refused as configuration errors",
          arguments: ["127.0.0.1", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:+80", "no such host:80", "-x:80", "1.2.3:80",
                      "127.0.0.1:000080", "127.0.0.1:080", "[::1]", "[::1]:", "[]:80", "[::1:80", "::1]:80", "[::g]:80",
                      "[fe80::1%lo]:80", "[127.0.0.1]:80", "[::1]:65536"])
    func badAddressesAreRefused(text: String) {
        #expect(throws: PeerChannelError(.invalidConfiguration, "")) { try SocketAddress(parsing: text) }
    }

    /// Review 17 F17-8: 'nonexistent.invalid:17450' was refused as "not an ADDR:PORT ... or a host
    /// name" (64): it is a host name, and the device cannot be reached by it (74).
    @Test("a well-formed host name that does not resolve is a device that cannot be reached, named")
    func anUnresolvableHostNameIsSaidSo() {
        do {
            _ = try SocketAddress(parsing: "nonexistent.invalid:17450")
            Issue.record("an unresolvable host name was accepted")
        } catch {
            #expect(error.code == .connectionFailed, "\(error.code)")
            #expect(error.message.contains("'nonexistent.invalid' does not resolve"), "\(error.message)")
        }
    }

    @Test("an IPv6 address without brackets is refused with the bracketed form as the hint")
    func unbracketedIPv6SaysHow() {
        do {
            _ = try SocketAddress(parsing: "::1:7420")
            Issue.record("an unbracketed IPv6 address was accepted")
        } catch {
            #expect(error.code == .invalidConfiguration && error.message.contains("[::1]:7420"), "\(error.message)")
        }
    }

    /// Whether this machine has an IPv6 loopback to test on (containers often have none).
    static var hasIPv6Loopback: Bool {
        let descriptor = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_addr = SocketAddress.ipv6("::1") ?? in6_addr()
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) == 0 }
        }
    }

    @Test("a listener on [::1] is reached by a connection to [::1]: frames go both ways and the peer address is IPv6",
          .enabled(if: hasIPv6Loopback, "this machine has no IPv6 loopback (::1): the IPv6 socket test is skipped"))
    func ipv6LoopbackCarriesFrames() throws {
        let listener = try TCPListener(address: SocketAddress(parsing: "[::1]:0"))
        #expect(listener.address.isIPv6 && listener.address.host == "::1" && listener.address.port != 0)
        let client = try TCPConnection.connect(to: listener.address, maximumFrameLength: 1024, timeoutSeconds: 10)
        let server = try #require(try listener.accept(waitSeconds: 5, maximumFrameLength: 1024, timeoutSeconds: 10))
        #expect(server.peer.isIPv6 && server.peer.host == "::1")
        try client.writeFrame(Array("hello over ::1".utf8))
        #expect(try server.readFrame() == Array("hello over ::1".utf8))
        try server.writeFrame([7])
        #expect(try client.readFrame() == [7])
    }

}
