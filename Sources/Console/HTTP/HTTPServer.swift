import Dispatch
import Foundation
import Synchronization

/// The console's HTTP/1.1 server (SECURITY.md §16.2): listens on 127.0.0.1 and ::1 only, answers
/// one request per connection, serves at most `limits.connections` connections at once (more are
/// answered 503), and cuts off a client that is slow to send or to read.
public final class HTTPServer: Sendable {
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    public let port: UInt16
    private let listeners: [Int32]
    private let parser: HTTPRequestParser
    private let open = Mutex(0)
    private let started = Atomic<Bool>(false)
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    /// Binds 127.0.0.1:`port` (0: a free port) and the same port on ::1 when this machine has IPv6.
    public init(port: UInt16 = 0, limits: HTTPLimits = HTTPLimits()) throws(ConsoleError) {
        let ipv4 = try LoopbackSocket.listen(.ipv4, port: port)
        var listeners = [ipv4.descriptor]
        // ::1 is a convenience (a browser may resolve localhost to it); without IPv6, 127.0.0.1 serves alone.
        if let ipv6 = try? LoopbackSocket.listen(.ipv6, port: ipv4.port) { listeners.append(ipv6.descriptor) }
        self.port = ipv4.port
        self.listeners = listeners
        parser = HTTPRequestParser(limits: limits)
    }

    /// Serves on a thread of its own until `stop()`.
    public func start(_ handler: @escaping Handler) {
        guard !started.exchange(true, ordering: .sequentiallyConsistent) else { return }
        let thread = Thread { [self] in
            acceptLoop(handler)
            finished.signal()
        }
        thread.name = "console-http"
        thread.start()
    }

    /// Stops accepting and closes the listening sockets; connections in flight finish on their own.
    public func stop() {
        guard !stopping.exchange(true, ordering: .sequentiallyConsistent) else { return }
        if started.load(ordering: .sequentiallyConsistent) { finished.wait() }
        listeners.forEach(LoopbackSocket.close)
    }

    private func acceptLoop(_ handler: @escaping Handler) {
        while !stopping.load(ordering: .sequentiallyConsistent) {
            for index in LoopbackSocket.readable(listeners, milliseconds: 200) {
                while let client = LoopbackSocket.accept(listeners[index]) { admit(client, handler) }
            }
        }
    }

    private func admit(_ client: Int32, _ handler: @escaping Handler) {
        let admitted = open.withLock { count -> Bool in
            guard count < parser.limits.connections else { return false }
            count += 1
            return true
        }
        DispatchQueue.global().async { [self] in
            defer {
                LoopbackSocket.close(client)
                if admitted { open.withLock { $0 -= 1 } }
            }
            let connection = HTTPConnection(descriptor: client, parser: parser)
            guard admitted else {
                try? connection.write(HTTPResponse.error(ConsoleError(.overloaded, "the console is serving too many connections")).serialized())
                return
            }
            serve(connection, handler)
        }
    }

    private func serve(_ connection: HTTPConnection, _ handler: Handler) {
        let response: HTTPResponse
        var isHead = false
        do {
            let request = try connection.readRequest()
            isHead = request.method == .head
            response = handler(request)
        } catch {
            // A client that went away or timed out is told why if it still listens.
            response = .error(error)
        }
        do {
            try connection.write(response.serialized(forHead: isHead))
        } catch {
            return
        }
        if let stream = response.stream, !isHead {
            stream({ text throws in try connection.write(Array(text.utf8)) }, { [self] in stopping.load(ordering: .sequentiallyConsistent) })
        }
    }
}
