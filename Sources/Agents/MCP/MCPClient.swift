import CryptoVault
import Synchronization
import PrivilegedSession

/// A client of one MCP server over stdio: starts it, agrees a protocol revision, lists its tools and
/// calls them. The arguments of a call are a `ReleasedPayload` for this server's destination, so no
/// byte reaches the server that did not pass the egress funnel (SECURITY.md §18.2).
///
/// Revision: it probes with `server/discover` (2026-07-28). A discover result naming 2026-07-28 makes
/// the session stateless; any other answer, or none within `probeTimeout`, means a 2025-11-25 server,
/// which gets the `initialize` handshake (on a fresh process if the probe made it exit).
public final class MCPClient: Sendable {
    public let configuration: MCPServerConfiguration
    public let revision: MCPRevision
    /// What the server calls itself: its own claim, for display only.
    public let serverName: String
    public let limits: MCPLimits
    private let connection: Mutex<MCPConnection?>

    /// The only environment a server gets: enough to find programs and a home, nothing of ours.
    public static func defaultEnvironment(from environment: [String: String]) -> [String: String] {
        var chosen = ["PATH": environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"]
        chosen["HOME"] = environment["HOME"]
        return chosen
    }

    public init(_ configuration: MCPServerConfiguration, environment: [String: String], limits: MCPLimits = MCPLimits()) throws(AgentsError) {
        self.configuration = configuration
        self.limits = limits
        let deadline = MonotonicDeadline.after(limits.startTimeout, on: limits.clock)
        var connection = MCPConnection(process: try Self.start(configuration, environment, limits), limits: limits)
        var revision = MCPRevision.stateless
        var info: JSONValue?
        do throws(AgentsError) {
            switch try Self.probe(connection, limits: limits) {
            case .modern(let serverInfo): info = serverInfo
            case .legacy(let processGone):
                if processGone {
                    connection.stop()
                    connection = MCPConnection(process: try Self.start(configuration, environment, limits), limits: limits)
                }
                switch try Self.initialize(connection, until: deadline) {
                case .legacy(let serverInfo):
                    revision = .legacy
                    info = serverInfo
                case .modern:
                    // A dual-era server that refused the handshake because the probe already made
                    // the process a 2026-07-28 one (PyPI's mcp SDK does this): stay stateless.
                    info = nil
                }
            }
        } catch {
            connection.stop()
            throw error
        }
        connection.revision = revision
        self.revision = revision
        self.serverName = ToolDescriptor.printable(info?["name"]?.stringValue ?? configuration.name, maximumBytes: 64)
        self.connection = Mutex(connection)
    }

    deinit { close() }

    /// Stops the server (closing its input, then SIGTERM, then SIGKILL to its group; bounded).
    public func close() {
        connection.withLock { connection in
            connection?.stop()
            connection = nil
        }
    }

    private static func start(_ configuration: MCPServerConfiguration, _ environment: [String: String],
                              _ limits: MCPLimits) throws(AgentsError) -> StdioProcess {
        try StdioProcess(command: configuration.command, environment: environment, maximumLineBytes: limits.maximumMessageBytes, clock: limits.clock)
    }

    enum ProbeOutcome {
        case modern(serverInfo: JSONValue?)
        case legacy(processGone: Bool)
    }

    /// `server/discover`, as the 2026-07-28 stdio binding says to tell the two eras apart.
    private static func probe(_ connection: MCPConnection, limits: MCPLimits) throws(AgentsError) -> ProbeOutcome {
        let answer: Result<JSONValue, JSONRPCError>?
        do throws(AgentsError) {
            answer = try connection.attempt("server/discover", params: MCPRevision.stateless.params([]), timeout: limits.probeTimeout)
        } catch where error.code == .mcpServerUnavailable {
            return .legacy(processGone: true)
        } catch where error.code == .mcpProtocolViolation || error.code == .mcpServerError {
            // A legacy server may answer a request before `initialize` with anything at all.
            return .legacy(processGone: false)
        }
        switch answer {
        case .success(let result)?:
            let versions = result["supportedVersions"]?.arrayValue?.compactMap { $0.stringValue } ?? []
            if versions.contains(MCPRevision.stateless.rawValue) {
                return .modern(serverInfo: result["_meta"]?["io.modelcontextprotocol/serverInfo"])
            }
            guard versions.contains(MCPRevision.legacy.rawValue) else { throw unsupported(versions) }
            return .legacy(processGone: false)
        case .failure(let error)? where error.code == JSONRPCError.unsupportedProtocolVersion:
            let versions = error.data?["supported"]?.arrayValue?.compactMap { $0.stringValue } ?? []
            guard versions.contains(MCPRevision.legacy.rawValue) else { throw unsupported(versions) }
            return .legacy(processGone: false)
        case .failure?, .none:
            return .legacy(processGone: false)
        }
    }

    enum HandshakeOutcome {
        case legacy(serverInfo: JSONValue?)
        case modern
    }

    /// The 2025-11-25 handshake: `initialize`, the server's agreed version checked, `initialized`.
    /// A refusal with the 2026-07-28 UnsupportedProtocolVersion error naming 2026-07-28 means the
    /// server is a modern one after all.
    private static func initialize(_ connection: MCPConnection, until deadline: MonotonicDeadline) throws(AgentsError) -> HandshakeOutcome {
        let params: JSONValue = .members([
            "protocolVersion": .string(MCPRevision.legacy.rawValue),
            "capabilities": .object([]),
            "clientInfo": MCPRevision.clientInfo,
        ])
        let left = Duration.seconds(max(deadline.remaining, 0.001))
        guard let answer = try connection.attempt("initialize", params: params, timeout: left) else {
            throw AgentsError(.mcpTimeout, "the MCP server did not answer initialize in time")
        }
        switch answer {
        case .failure(let error) where error.code == JSONRPCError.unsupportedProtocolVersion:
            let versions = error.data?["supported"]?.arrayValue?.compactMap { $0.stringValue } ?? []
            guard versions.contains(MCPRevision.stateless.rawValue) else { throw unsupported(versions) }
            return .modern
        case .failure(let error):
            throw AgentsError(.mcpServerError, "the MCP server refused initialize: \(error.code) \(error.printable)")
        case .success(let result):
            guard let version = result["protocolVersion"]?.stringValue else { throw JSONRPCMessage.violation("an initialize result without protocolVersion") }
            guard version == MCPRevision.legacy.rawValue else { throw unsupported([version]) }
            try connection.notify("notifications/initialized")
            return .legacy(serverInfo: result["serverInfo"])
        }
    }

    private static func unsupported(_ versions: [String]) -> AgentsError {
        let offered = versions.prefix(8).map { ToolDescriptor.printable($0, maximumBytes: 32) }.joined(separator: ", ")
        return AgentsError(.mcpUnsupportedVersion,
                           "the MCP server speaks \(offered.isEmpty ? "no version it named" : offered); this client speaks 2026-07-28 and 2025-11-25")
    }

    /// Runs `body` on the open connection; a server that broke the protocol or stopped answering is
    /// stopped, so the next call fails fast instead of reading the rest of a broken stream.
    func withConnection<T: Sendable>(_ body: (MCPConnection) throws(AgentsError) -> T) throws(AgentsError) -> T {
        try connection.withLock { (connection: inout MCPConnection?) throws(AgentsError) -> T in
            guard let open = connection else { throw AgentsError(.mcpServerUnavailable, "the MCP server '\(configuration.name)' was stopped") }
            do throws(AgentsError) { return try body(open) } catch {
                if error.code != .mcpServerError {
                    open.stop()
                    connection = nil
                }
                throw error
            }
        }
    }
}
