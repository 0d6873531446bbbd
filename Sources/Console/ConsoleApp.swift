import Appliance
import CryptoVault
import Foundation
import PrivilegedSession

/// The console (SECURITY.md §16): one HTTP server on loopback, the page's files, and the JSON API,
/// behind the request guard. It shares the daemon's vault and privileged-session registry, so the
/// console and the CLI see the same sessions and every action is recorded the same way.
public final class ConsoleApp: Sendable {
    public let server: HTTPServer
    public let credentials: ConsoleCredentials
    let requestGuard: RequestGuard
    let api: ConsoleAPI

    /// `clock` is the writing model's time (a test moves it by hand).
    public init(vault: UnlockedVault, sessions: SessionRegistry, limits: SessionLimits, port: UInt16 = 0,
                credentials: ConsoleCredentials = ConsoleCredentials(), clock: VaultClock = .system) throws {
        self.credentials = credentials
        server = try HTTPServer(port: port)
        requestGuard = RequestGuard(port: server.port, credentials: credentials)
        api = ConsoleAPI(access: ProjectAccess(vault: vault, sessions: sessions, clock: clock), limits: limits)
    }

    /// A new launch URL (a one-time token), for the terminal that started the console.
    public func launchURL() throws -> String {
        "http://127.0.0.1:\(server.port)/launch?token=\(try credentials.newLaunchToken())"
    }

    public func start() { server.start { [self] request in handle(request) } }

    /// Stops serving; every browser session ends with it.
    public func stop() {
        api.pairing.stop()
        server.stop()
        credentials.endAll()
    }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        do {
            try requestGuard.checkOrigin(request)
            if request.path == "/launch" { return try launch(request) }
            if let page = ConsolePages.all[request.path] {
                guard request.method == .get || request.method == .head else { throw ConsoleError(.methodNotAllowed, "pages are only read") }
                return HTTPResponse(status: 200, fields: [("Content-Type", page.type)], body: page.bytes)
            }
            guard request.path.hasPrefix("/api/") else { throw ConsoleError(.notFound, "no such page") }
            let session = try requestGuard.authenticate(request)
            let route = try Self.segments(of: String(request.path.dropFirst("/api/".count)))
            return try api.handle(request, route, csrf: ConsoleCredentials.hex(session.csrf))
        } catch let error as ConsoleError {
            return .error(error)
        } catch {
            return .error(ErrorMapping.consoleError(for: error))
        }
    }

    /// `/launch?token=T`: spends the token and sets the session cookie, then sends the browser to the
    /// page, so the token is not left in the address bar.
    private func launch(_ request: HTTPRequest) throws -> HTTPResponse {
        guard request.method == .get, let token = request.queryValue("token"), let cookie = try credentials.exchange(launchToken: token) else {
            throw ConsoleError(.unauthenticated, "this launch link is spent, expired (10 minutes) or unknown: run 'vaultctl console' for a new one")
        }
        // A browser signed in: on the record, as every other way into the vault is.
        try api.access.vault.transaction { tx in try tx.record(ConsoleAuditActions.signIn) }
        let setCookie = "\(ConsoleCredentials.cookieName)=\(cookie); Path=/; HttpOnly; SameSite=Strict"
        return .redirect(to: "/", fields: [("Set-Cookie", setCookie)])
    }

    /// The route's segments, percent-decoded; an empty or undecodable segment is refused.
    static func segments(of path: String) throws(ConsoleError) -> [String] {
        try path.split(separator: "/", omittingEmptySubsequences: false).map { segment throws(ConsoleError) -> String in
            guard !segment.isEmpty, let decoded = String(segment).removingPercentEncoding else {
                throw ConsoleError(.notFound, "no such API route")
            }
            return decoded
        }
    }
}

extension ConsoleApp: DaemonCompanion {}
