import CryptoVault

/// The bounds the bridge holds an MCP server to. A server is a program someone else wrote: each
/// bound is what a hostile or broken one could otherwise make us spend without end.
public struct MCPLimits: Sendable {
    /// One message (one line); past this the line is refused before it is parsed.
    public var maximumMessageBytes = 4 << 20
    /// From start to a usable session (the probe, the handshake).
    public var startTimeout: Duration = .seconds(20)
    /// How long `server/discover` may go unanswered before the server is taken for a 2025-11-25 one.
    public var probeTimeout: Duration = .seconds(5)
    /// One request, whatever notifications come meanwhile.
    public var requestTimeout: Duration = .seconds(30)
    /// Notifications and server requests read while one request is pending.
    public var maximumInterleavedMessages = 1000
    /// Tools one server may list, and pages it may take to list them.
    public var maximumTools = 256
    public var maximumPages = 16
    /// The text a tool call may return, all content blocks together.
    public var maximumOutputBytes = 256 << 10
    /// The clock every timeout above is read on (a test moves it by hand).
    public var clock: VaultClock = .system

    public init() {}
}
