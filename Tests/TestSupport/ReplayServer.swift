import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A model server of our own on loopback, for tests: it reads each request (head and
/// Content-Length body), keeps it in its own request log, and answers with the steps a script gives
/// for it: bytes to send, pauses, a close in the middle. Every wait is bounded; `stop` ends it.
public final class ReplayServer: Sendable {
    public enum Step: Sendable {
        case send([UInt8])
        case pause(milliseconds: Int)
        /// Sends `count` bytes of `byte` in pieces of 64 KiB (a huge answer without building it whole).
        case sendRepeated(prefix: [UInt8], byte: UInt8, count: Int)
    }

    public struct Request: Sendable {
        public let head: String
        public let body: [UInt8]
        public var bodyText: String { String(decoding: body, as: UTF8.self) }
    }

    public let port: UInt16
    private let listener: Int32
    private let stopped = Atomic<Bool>(false)
    private let log = Mutex<[Request]>([])
    private let script: @Sendable (Request) -> [Step]

    public init(_ script: @escaping @Sendable (Request) -> [Step]) throws {
        self.script = script
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var on: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(INADDR_LOOPBACK).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 16) == 0 else { throw ReplayError.cannotListen }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        listener = descriptor
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    deinit { stop() }

    public enum ReplayError: Error { case cannotListen }

    public var url: String { "http://127.0.0.1:\(port)" }

    /// Every request received so far, in order: the server's own record of what reached it.
    public var requests: [Request] { log.withLock { $0 } }

    public func stop() {
        guard !stopped.exchange(true, ordering: .sequentiallyConsistent) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        let started = Date()
        while !stopped.load(ordering: .sequentiallyConsistent), Date().timeIntervalSince(started) < 600 {
            var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 100) > 0 else { continue }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            let thread = Thread { [self] in serve(connection) }
            thread.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        _ = setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard let request = read(connection) else { return }
        log.withLock { $0.append(request) }
        for step in script(request) {
            switch step {
            case .send(let bytes): guard write(connection, bytes) else { return }
            case .pause(let milliseconds): usleep(useconds_t(milliseconds * 1000))
            case .sendRepeated(let prefix, let byte, let count):
                guard write(connection, prefix) else { return }
                let piece = [UInt8](repeating: byte, count: 65536)
                var left = count
                while left > 0 {
                    guard write(connection, Array(piece.prefix(left))) else { return }
                    left -= min(left, piece.count)
                }
            }
        }
    }

    private func read(_ connection: Int32) -> Request? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        var headEnd: Int?
        var bodyLength = 0
        while bytes.count < 64 * 1024 * 1024 {
            if let end = headEnd, bytes.count >= end + bodyLength { break }
            let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            bytes += buffer[..<count]
            if headEnd == nil, let split = (0..<max(0, bytes.count - 3)).first(where: { bytes[$0..<($0 + 4)].elementsEqual([13, 10, 13, 10]) }) {
                headEnd = split + 4
                let head = String(decoding: bytes[..<split], as: UTF8.self)
                for line in head.split(separator: "\r\n") where line.lowercased().hasPrefix("content-length:") {
                    bodyLength = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
        }
        guard let end = headEnd else { return nil }
        return Request(head: String(decoding: bytes[..<end], as: UTF8.self), body: Array(bytes[end..<min(bytes.count, end + bodyLength)]))
    }

    private func write(_ connection: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }
}

/// HTTP framing for scripted answers.
public enum Wire {
    public static func head(_ status: Int = 200, _ fields: [String]) -> [UInt8] {
        let reason = [200: "OK", 400: "Bad Request", 404: "Not Found", 429: "Too Many Requests", 500: "Internal Server Error"][status] ?? "Status"
        return Array(("HTTP/1.1 \(status) \(reason)\r\n" + fields.map { $0 + "\r\n" }.joined() + "\r\n").utf8)
    }

    public static func chunk(_ text: String) -> [UInt8] { chunk(Array(text.utf8)) }
    public static func chunk(_ bytes: [UInt8]) -> [UInt8] { Array(String(bytes.count, radix: 16).utf8) + [13, 10] + bytes + [13, 10] }
    public static let lastChunk: [UInt8] = Array("0\r\n\r\n".utf8)

    /// A whole chunked event-stream answer: each event its own chunk.
    public static func chunkedEvents(_ events: [String], separator: String = "\n\n", status: Int = 200) -> [ReplayServer.Step] {
        [.send(head(status, ["Content-Type: text/event-stream", "Transfer-Encoding: chunked"]))]
            + events.map { .send(chunk("data: \($0)\(separator)")) } + [.send(lastChunk)]
    }

    public static func json(_ status: Int, _ body: String) -> [ReplayServer.Step] {
        [.send(head(status, ["Content-Type: application/json", "Content-Length: \(body.utf8.count)"]) + Array(body.utf8))]
    }
}
