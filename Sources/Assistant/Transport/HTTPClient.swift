import CryptoVault

/// A small HTTP/1.1 client for model servers: one request per connection (`Connection: close`), a
/// body sent whole, the answer read as it streams, every wait bounded and every size capped. We
/// wrote it on sockets rather than use Foundation's URLSession because URLSession's networking on
/// Linux (libcurl underneath) cannot be bounded per byte or cancelled reliably mid-stream, and its
/// streaming delegate behaves differently from Darwin's; this is about 200 lines we can test whole.
public struct HTTPClient: Sendable {
    public struct Timeouts: Sendable {
        /// To open the connection.
        public var connect: Duration
        /// From the request sent to the response's first byte (a model may think before it speaks).
        public var firstByte: Duration
        /// Between two reads of the answer once it has started.
        public var idle: Duration
        /// For the whole exchange, however steadily bytes trickle in.
        public var total: Duration

        public init(connect: Duration = .seconds(5), firstByte: Duration = .seconds(120), idle: Duration = .seconds(60),
                    total: Duration = .seconds(600)) {
            self.connect = connect
            self.firstByte = firstByte
            self.idle = idle
            self.total = total
        }
    }

    public var timeouts: Timeouts
    /// The most body bytes read from one response (after chunked decoding).
    public var maximumBodyBytes: Int
    /// The clock of every deadline above (a test moves it by hand).
    public var clock: VaultClock

    public init(timeouts: Timeouts = Timeouts(), maximumBodyBytes: Int = 8 * 1024 * 1024, clock: VaultClock = .system) {
        self.timeouts = timeouts
        self.maximumBodyBytes = maximumBodyBytes
        self.clock = clock
    }

    /// POSTs `body` to `path` under the endpoint and hands the response's head, then its body bytes
    /// as they arrive (dechunked), to the closures. Returns when the body has ended as its framing
    /// says; a connection closed before that is `.truncatedStream`.
    /// `secretHeaders` (an API key) are sent from locked memory where they lie.
    public func post(_ body: [UInt8], to endpoint: HTTPEndpoint, path: String, headers: [(name: String, value: String)],
                     secretHeaders: [(name: String, value: SecureBytes)] = [], head onHead: (HTTPResponseHead) throws -> Void, body onBody: (ArraySlice<UInt8>) throws -> Void) throws {
        let end = MonotonicDeadline.after(timeouts.total, on: clock)
        let socket = try ClientSocket(connectingTo: endpoint, until: min(end, .after(timeouts.connect, on: clock)))
        try socket.send(requestHead(body.count, to: endpoint, path: path, headers: headers), until: end)
        for header in secretHeaders {
            try socket.send(Array("\(header.name): ".utf8), until: end)
            try header.value.withUnsafeBytes { try socket.send($0, until: end) }
            try socket.send([0x0D, 0x0A], until: end)
        }
        try socket.send([0x0D, 0x0A] + body, until: end)
        var reader = ResponseReader(maximumBodyBytes: maximumBodyBytes)
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var deadline = min(end, .after(timeouts.firstByte, on: clock))
        while !reader.isComplete {
            let count = try receive(socket, into: &buffer, until: deadline, end: end, started: reader.hasHead)
            guard count > 0 else { try reader.closed(); break }
            try reader.read(buffer[0..<count], head: onHead, body: onBody)
            deadline = min(end, .after(timeouts.idle, on: clock))
        }
    }

    /// Whether the endpoint accepts a connection within the connect timeout. Nothing is sent.
    public func probe(_ endpoint: HTTPEndpoint) throws {
        _ = try ClientSocket(connectingTo: endpoint, until: .after(timeouts.connect, on: clock))
    }

    /// One read, its timeout said in words: the whole answer's bound, the gap between bytes, or the first byte's.
    private func receive(_ socket: ClientSocket, into buffer: inout [UInt8], until deadline: MonotonicDeadline,
                         end: MonotonicDeadline, started: Bool) throws -> Int {
        do {
            return try socket.receive(into: &buffer, until: deadline)
        } catch {
            guard error.code == .timedOut else { throw error }
            if end.hasPassed { throw AssistantError(.timedOut, "the answer took longer than \(timeouts.total) in all") }
            if started { throw AssistantError(.timedOut, "the provider sent nothing for \(timeouts.idle)") }
            throw AssistantError(.timedOut, "no answer within \(timeouts.firstByte)")
        }
    }

    /// The request line and the public fields, without the blank line that ends the head.
    func requestHead(_ bodyCount: Int, to endpoint: HTTPEndpoint, path: String, headers: [(name: String, value: String)]) -> [UInt8] {
        var head = "POST \(endpoint.basePath)\(path) HTTP/1.1\r\nHost: \(endpoint.hostField)\r\nContent-Length: \(bodyCount)\r\n"
        head += "Connection: close\r\nUser-Agent: vaultctl-assistant\r\n"
        for header in headers { head += "\(header.name): \(header.value)\r\n" }
        return Array(head.utf8)
    }
}

/// The response as it arrives: the head (bounded), then the body by its framing.
struct ResponseReader {
    let maximumBodyBytes: Int
    private var headBytes: [UInt8] = []
    private(set) var head: HTTPResponseHead?
    private var chunked = ChunkedDecoder()
    private var bodyRead = 0

    init(maximumBodyBytes: Int) { self.maximumBodyBytes = maximumBodyBytes }

    var hasHead: Bool { head != nil }

    var isComplete: Bool {
        switch head?.framing {
        case .length(let count): bodyRead == count
        case .chunked: chunked.isFinished
        case .untilClose, nil: false
        }
    }

    mutating func read(_ bytes: ArraySlice<UInt8>, head onHead: (HTTPResponseHead) throws -> Void,
                       body onBody: (ArraySlice<UInt8>) throws -> Void) throws {
        var rest = bytes
        if head == nil {
            // A read is at most 64 KiB, so the bytes kept while looking for the head stay bounded.
            headBytes.append(contentsOf: rest)
            guard let end = HTTPResponseHead.endOfHead(in: headBytes) else {
                guard headBytes.count <= HTTPResponseHead.maximumBytes else { throw AssistantError(.responseTooLarge, "the response head is over \(HTTPResponseHead.maximumBytes) bytes") }
                return
            }
            let parsed = try HTTPResponseHead(parsing: Array(headBytes[..<end]))
            rest = headBytes[end...]
            headBytes = []
            head = parsed
            try onHead(parsed)
        }
        try body(rest, onBody)
    }

    private mutating func body(_ bytes: ArraySlice<UInt8>, _ onBody: (ArraySlice<UInt8>) throws -> Void) throws {
        guard !bytes.isEmpty, let head else { return }
        let decoded: ArraySlice<UInt8>
        switch head.framing {
        case .chunked: decoded = ArraySlice(try chunked.feed(bytes))
        case .length(let count):
            guard bodyRead + bytes.count <= count else { throw AssistantError(.malformedResponse, "more body bytes than Content-Length says") }
            decoded = bytes
        case .untilClose: decoded = bytes
        }
        bodyRead += head.framing == .chunked ? 0 : bytes.count
        guard decodedTotal(adding: decoded.count) <= maximumBodyBytes else {
            throw AssistantError(.responseTooLarge, "the answer is over \(maximumBodyBytes) bytes")
        }
        if !decoded.isEmpty { try onBody(decoded) }
    }

    private var decodedBytes = 0
    private mutating func decodedTotal(adding count: Int) -> Int {
        decodedBytes += count
        return decodedBytes
    }

    /// The server closed the connection: fine only where the framing says the body ends so.
    func closed() throws {
        guard let head else {
            // What came may be a head the grammar refuses (bare LF line ends): say that, not merely that it ended.
            if !headBytes.isEmpty { _ = try HTTPResponseHead(parsing: headBytes) }
            throw AssistantError(.truncatedStream, "the connection closed before a response")
        }
        if head.framing == .untilClose { return }
        guard isComplete else { throw AssistantError(.truncatedStream, "the connection closed in the middle of the answer") }
    }
}
