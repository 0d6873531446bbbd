import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Raw HTTP/1.1 over loopback, as a browser or an attacker speaks it to the console: the request's
/// bytes are sent as given, and the response is read until the server closes the connection.
public enum LoopbackHTTP {
    public static func exchange(_ bytes: [UInt8], port: UInt16) throws -> HTTPReply {
        let socket = try connect(port: port)
        defer { close(socket) }
        _ = bytes.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received += buffer[..<count]
        }
        return try HTTPReply(received)
    }

    /// A GET with the given fields (Host is 127.0.0.1:port unless given).
    public static func get(_ path: String, port: UInt16, fields: [String: String] = [:]) throws -> HTTPReply {
        var all = ["Host": "127.0.0.1:\(port)"]
        all.merge(fields) { $1 }
        let head = "GET \(path) HTTP/1.1\r\n" + all.map { "\($0.key): \($0.value)\r\n" }.joined() + "\r\n"
        return try exchange(Array(head.utf8), port: port)
    }

    /// A connected TCP socket to 127.0.0.1:`port`, with a 60 s receive timeout.
    public static func connect(port: UInt16) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        _ = setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(INADDR_LOOPBACK).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(socket)
            throw CLIError(message: "cannot connect to 127.0.0.1:\(port)")
        }
        return socket
    }
}

/// A response as it came over the wire: status, fields (names in lower case), body.
public struct HTTPReply {
    public let status: Int
    public let fields: [(String, String)]
    public let body: [UInt8]

    public init(_ bytes: [UInt8]) throws {
        guard let split = (0..<max(0, bytes.count - 3)).first(where: { bytes[$0..<($0 + 4)].elementsEqual([13, 10, 13, 10]) }) else {
            throw CLIError(message: "no response head in \(bytes.count) bytes")
        }
        let lines = String(decoding: bytes[..<split], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw CLIError(message: "bad status line \(lines[0])") }
        self.status = status
        fields = lines.dropFirst().compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        body = Array(bytes[(split + 4)...])
    }

    public func field(_ name: String) -> String? { fields.first { $0.0 == name }?.1 }
    public var text: String { String(decoding: body, as: UTF8.self) }
    public var json: Any? { try? JSONSerialization.jsonObject(with: Data(body)) }
    public var errorCode: String? { (json as? [String: Any])?["error"] as? String }

    /// The cookie value a Set-Cookie field sets for `name`.
    public func cookie(_ name: String) -> String? {
        guard let set = field("set-cookie"), let pair = set.split(separator: ";").first else { return nil }
        let parts = pair.split(separator: "=", maxSplits: 1)
        return parts.count == 2 && parts[0] == name ? String(parts[1]) : nil
    }
}
