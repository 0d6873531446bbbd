/// The bounds of the console's HTTP server (SECURITY.md §16.2): every size an attacker's page or a
/// local process controls is capped before it is read, and every wait has a deadline.
public struct HTTPLimits: Sendable {
    /// The request line and header fields together, up to and including the blank line.
    public var headBytes = 16 * 1024
    public var fieldCount = 64
    /// The request target (path and query).
    public var targetBytes = 4 * 1024
    /// A body: a document's text in JSON (a 150,000-word manuscript is about 1 MiB).
    public var bodyBytes = 16 * 1024 * 1024
    /// How long a client has to send the whole head, and then the whole body (a slow client is cut off).
    public var headSeconds = 10.0
    public var bodySeconds = 30.0
    /// How long a response may take to be taken by the client.
    public var writeSeconds = 30.0
    /// Connections served at once; more are answered 503 and closed.
    public var connections = 32

    public init() {}
}
