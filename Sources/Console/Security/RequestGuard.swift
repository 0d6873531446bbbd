/// The checks every request passes before it is routed (SECURITY.md §16.4), each refusing with its
/// reason:
/// - Host must name this server as the browser reached it (127.0.0.1, localhost or [::1] with the
///   port): a page on another name that resolves to 127.0.0.1 (DNS rebinding) is refused.
/// - Origin, when sent, must be this server's; a state-changing request must send it.
/// - Sec-Fetch-Site, when sent, must be same-origin (or none: the owner typed or pasted the URL).
/// - Every request but the launch and the page's static files needs a live session cookie, and a
///   state-changing one also the session's CSRF token in `X-CSRF-Token`.
public struct RequestGuard: Sendable {
    public let port: UInt16
    let credentials: ConsoleCredentials

    public init(port: UInt16, credentials: ConsoleCredentials) {
        self.port = port
        self.credentials = credentials
    }

    /// The hosts this server answers to.
    var allowedHosts: [String] { ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)"] }

    /// Refuses a request from anywhere but the console's own page.
    public func checkOrigin(_ request: HTTPRequest) throws(ConsoleError) {
        guard let host = request.field("host")?.lowercased(), allowedHosts.contains(host) else {
            throw ConsoleError(.forbiddenOrigin, "the Host field does not name this console (127.0.0.1:\(port))")
        }
        if let origin = request.field("origin") {
            guard allowedHosts.contains(where: { "http://" + $0 == origin.lowercased() }) else {
                throw ConsoleError(.forbiddenOrigin, "the request comes from another origin")
            }
        } else if request.isStateChanging {
            throw ConsoleError(.forbiddenOrigin, "a request that changes something must say its Origin")
        }
        if let site = request.field("sec-fetch-site"), site != "same-origin", site != "none" {
            throw ConsoleError(.forbiddenOrigin, "the request comes from a \(site) page")
        }
    }

    /// The request's browser session; a state-changing request must also carry its CSRF token.
    func authenticate(_ request: HTTPRequest) throws(ConsoleError) -> ConsoleCredentials.BrowserSession {
        guard let session = credentials.session(cookie: request.cookie(ConsoleCredentials.cookieName)) else {
            throw ConsoleError(.unauthenticated, "no console session: open the launch URL 'vaultctl serve --console' printed")
        }
        if request.isStateChanging, !credentials.isCSRFToken(request.field("x-csrf-token"), of: session) {
            throw ConsoleError(.missingCSRFToken, "the request lacks this session's CSRF token")
        }
        return session
    }
}
