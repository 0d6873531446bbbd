import CryptoVault

/// The console's one error type: a code to match on and a message for people. Messages never hold
/// plaintext, tokens or cookies. Each code carries the HTTP status the client is answered with.
public typealias ConsoleError = CodedError<ConsoleErrorCode>

public enum ConsoleErrorCode: String, Sendable {
    /// The request is not HTTP/1.1 as the server accepts it (400).
    case malformedRequest
    /// A method the console does not serve (501).
    case unsupportedMethod
    /// `Transfer-Encoding` on a request: the console takes `Content-Length` bodies only (501).
    case unsupportedEncoding
    /// The request target is too long (414).
    case targetTooLong
    /// The head (request line and fields) is too long or has too many fields (431).
    case headTooLarge
    /// The body is longer than the limit (413).
    case bodyTooLarge
    /// The client took too long to send its request (408).
    case requestTimeout
    /// The request names another host (DNS rebinding), comes from a foreign origin or a cross-site page (403).
    case forbiddenOrigin
    /// No valid session cookie, or a spent or unknown launch token (401).
    case unauthenticated
    /// A state-changing request without the session's CSRF token (403).
    case missingCSRFToken
    /// No such page or API route (404).
    case notFound
    /// A privileged project without a live session of its compartment (423).
    case sessionRequired
    /// The change cannot be made as asked: a branch whose changes overlap the document's, or one already decided (409).
    case conflict
    /// A change asked of a daemon in in-memory mode, where the vault's writing store cannot be opened
    /// and only reads run (409; SECURITY.md §19.10).
    case inMemoryMode
    /// The route exists, but not with this method (405).
    case methodNotAllowed
    /// The request's JSON body is not what the route takes (400).
    case invalidBody
    /// A change to a project shared with this device to view only (403; SECURITY.md §19.9).
    case viewOnly
    /// The server is at its connection limit (503).
    case overloaded
    /// The listening sockets could not be made.
    case listenFailed
    /// The connection failed while reading or writing.
    case connectionFailed

    /// The status a client is answered with.
    public var status: Int {
        switch self {
        case .malformedRequest, .invalidBody: 400
        case .unsupportedMethod, .unsupportedEncoding: 501
        case .targetTooLong: 414
        case .headTooLarge: 431
        case .bodyTooLarge: 413
        case .requestTimeout: 408
        case .forbiddenOrigin, .missingCSRFToken, .viewOnly: 403
        case .unauthenticated: 401
        case .notFound: 404
        case .methodNotAllowed: 405
        case .sessionRequired: 423
        case .conflict, .inMemoryMode: 409
        case .overloaded: 503
        case .listenFailed, .connectionFailed: 500
        }
    }
}
