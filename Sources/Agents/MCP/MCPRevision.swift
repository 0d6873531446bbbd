/// The MCP protocol revisions this client speaks, and how a session on each carries its version.
///
/// - 2025-11-25 (legacy, stateful): an `initialize` request and an `notifications/initialized`
///   notification open a session; the version agreed there holds for the session.
/// - 2026-07-28 (modern, stateless): no handshake; every request carries the version, the client's
///   capabilities and identity in `params._meta` under `io.modelcontextprotocol/…` keys, and every
///   result carries `resultType`. `server/discover` tells which versions a server speaks; on stdio
///   it is also the probe that tells a modern server from a legacy one.
public enum MCPRevision: String, Sendable, CaseIterable {
    case stateless = "2026-07-28"
    case legacy = "2025-11-25"

    /// The identity this client gives servers (display only, per the specification).
    static let clientInfo: JSONValue = .members(["name": .string("vaultctl"), "version": .string("1")])

    /// The `_meta` a modern request carries: the version, no optional client capabilities (no
    /// sampling, no elicitation, no roots: a server may not ask this client for anything), identity.
    static var modernMeta: JSONValue {
        .members([
            "io.modelcontextprotocol/protocolVersion": .string(MCPRevision.stateless.rawValue),
            "io.modelcontextprotocol/clientCapabilities": .object([]),
            "io.modelcontextprotocol/clientInfo": clientInfo,
        ])
    }

    /// `params` with the modern `_meta` added (or for a legacy session, unchanged).
    func params(_ params: [(key: String, value: JSONValue)]) -> JSONValue {
        switch self {
        case .legacy: .object(params)
        case .stateless: .object(params + [(key: "_meta", value: Self.modernMeta)])
        }
    }
}
