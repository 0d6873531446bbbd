import CryptoVault

/// One open JSON-RPC conversation with an MCP server over its standard streams: requests out, the
/// matching response back, everything in between read, bounded and answered or refused.
/// Not thread-safe: `MCPClient` holds it behind its lock.
final class MCPConnection {
    private let process: StdioProcess
    private let limits: MCPLimits
    private var nextID = 1
    /// Requests we stopped waiting for (the probe of a server that did not answer in time): a late
    /// answer to one is dropped once, not taken for a protocol violation.
    private var abandoned = Set<JSONRPCID>()
    var revision: MCPRevision = .legacy

    init(process: StdioProcess, limits: MCPLimits) {
        self.process = process
        self.limits = limits
    }

    func stop() { process.stop() }

    /// Sends `method` and returns its result, or throws the server's error as `mcpServerError`
    /// (with the JSON-RPC error for callers that look at its code).
    func request(_ method: String, params: [(key: String, value: JSONValue)], timeout: Duration) throws(AgentsError) -> JSONValue {
        switch try exchange(method, params: revision.params(params), timeout: timeout) {
        case .success(let result): return try checkedResult(result, of: method)
        case .failure(let error): throw AgentsError(.mcpServerError, "the MCP server refused \(method): \(error.code) \(error.printable)")
        }
    }

    /// Like `request`, but hands back a JSON-RPC error instead of throwing it (for the probe and the
    /// handshake, which decide on its code), and a timeout as nil with the request abandoned.
    func attempt(_ method: String, params: JSONValue, timeout: Duration) throws(AgentsError) -> Result<JSONValue, JSONRPCError>? {
        do { return try exchange(method, params: params, timeout: timeout) } catch where error.code == .mcpTimeout {
            return nil
        }
    }

    func notify(_ method: String, params: JSONValue? = nil) throws(AgentsError) {
        try process.send(JSONRPCMessage.notification(method: method, params: params).encoded, before: .after(limits.requestTimeout, on: limits.clock))
    }

    private func exchange(_ method: String, params: JSONValue, timeout: Duration) throws(AgentsError) -> Result<JSONValue, JSONRPCError> {
        let id = JSONRPCID.number(nextID)
        nextID += 1
        let deadline = MonotonicDeadline.after(timeout, on: limits.clock)
        try process.send(JSONRPCMessage.request(id: id, method: method, params: params).encoded, before: deadline)
        do { return try response(to: id, before: deadline) } catch where error.code == .mcpTimeout {
            abandoned.insert(id)
            throw error
        }
    }

    /// Reads until the response to `id`, answering or refusing what the server sends meanwhile.
    private func response(to id: JSONRPCID, before deadline: MonotonicDeadline) throws(AgentsError) -> Result<JSONValue, JSONRPCError> {
        var interleaved = 0
        while true {
            let message = try JSONRPCMessage(parsing: try process.receiveLine(before: deadline))
            switch message {
            case .result(let answered, let result) where answered == id: return .success(result)
            case .error(let answered?, let error) where answered == id: return .failure(error)
            case .error(nil, let error):
                throw AgentsError(.mcpServerError, "the MCP server could not read a request: \(error.code) \(error.printable)")
            case .result(let other, _), .error(let other?, _):
                guard abandoned.remove(other) != nil else { throw JSONRPCMessage.violation("a response to a request this client never sent") }
            case .notification:
                interleaved += 1
            case .request(let requestID, let method, _):
                interleaved += 1
                try answer(requestID, method)
            }
            guard interleaved <= limits.maximumInterleavedMessages else {
                throw AgentsError(.mcpTooLarge, "the MCP server sent more than \(limits.maximumInterleavedMessages) messages while one request was pending")
            }
        }
    }

    /// A request from the server. A 2025-11-25 server may ping; it may not ask for sampling, roots or
    /// elicitation, since this client declares none of them, so those get "method not found". A
    /// 2026-07-28 server may send no request at all on stdio.
    private func answer(_ id: JSONRPCID, _ method: String) throws(AgentsError) {
        guard revision == .legacy else { throw JSONRPCMessage.violation("a request, which a 2026-07-28 server may not send") }
        let reply: JSONRPCMessage = method == "ping"
            ? .result(id: id, result: .object([]))
            : .error(id: id, JSONRPCError(code: JSONRPCError.methodNotFound, message: "this client offers no \(method)"))
        try process.send(reply.encoded, before: .after(limits.requestTimeout, on: limits.clock))
    }

    /// A result in a modern session says it is complete: an `input_required` one asks this client for
    /// something (sampling, elicitation, roots) it does not give.
    private func checkedResult(_ result: JSONValue, of method: String) throws(AgentsError) -> JSONValue {
        guard revision == .stateless else { return result }
        switch result["resultType"] {
        case .string("complete")?: return result
        case .string("input_required")?:
            throw AgentsError(.mcpServerError, "the MCP server asked for input for \(method), which this client does not give")
        default: throw JSONRPCMessage.violation("a result without resultType \"complete\"")
        }
    }
}
