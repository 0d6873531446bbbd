import CryptoVault
import Foundation
import Synchronization

/// Who may use the console (SECURITY.md §16.4). The daemon prints a launch URL carrying a one-time
/// token; the browser that opens it gets a session cookie (HttpOnly, SameSite=Strict) and, from
/// `/api/session`, a CSRF token for its state-changing requests. All three are 32 random bytes held
/// in locked memory, compared in constant time, and live only in this process: the cookie dies with
/// the daemon, so a cookie stolen before a restart opens nothing after it.
public final class ConsoleCredentials: Sendable {
    public static let cookieName = "vault_console"
    static let tokenBytes = 32
    /// A console session lasts at most this long; then the owner opens a new launch URL.
    static let sessionLifetime: Duration = .seconds(12 * 3600)
    /// An unspent launch URL works this long (`vaultctl console` prints a new one), and at most this
    /// many wait at once (the oldest goes first), so a URL left in a log or a pasted note soon opens nothing.
    public static let standardLaunchLifetime: Duration = .seconds(600)
    static let launchTokenLimit = 4

    struct BrowserSession: Sendable {
        let cookie: SecureBytes
        let csrf: SecureBytes
        let expires: MonotonicDeadline
    }

    private let launchTokens = Mutex<[(token: SecureBytes, expires: MonotonicDeadline)]>([])
    private let sessions = Mutex<[BrowserSession]>([])
    let launchLifetime: Duration
    /// The clock of the lifetimes (a test moves it by hand).
    let clock: VaultClock

    public init(launchLifetime: Duration = ConsoleCredentials.standardLaunchLifetime, clock: VaultClock = .system) {
        self.launchLifetime = launchLifetime
        self.clock = clock
    }

    /// A new one-time launch token, as the hex the URL carries.
    public func newLaunchToken() throws -> String {
        let token = try SecureBytes.random(count: Self.tokenBytes)
        launchTokens.withLock { tokens in
            tokens.append((token, .after(launchLifetime, on: clock)))
            if tokens.count > Self.launchTokenLimit { tokens.removeFirst(tokens.count - Self.launchTokenLimit) }
        }
        return Self.hex(token)
    }

    /// Spends a launch token: the new browser session's cookie value, or nil when the token is
    /// unknown or already spent (each launch URL opens the console once).
    func exchange(launchToken text: String) throws -> String? {
        guard let presented = Self.bytes(hex: text) else { return nil }
        let matched = launchTokens.withLock { tokens -> Bool in
            tokens.removeAll { $0.expires.hasPassed }
            guard let index = tokens.firstIndex(where: { $0.token == presented }) else { return false }
            tokens.remove(at: index)
            return true
        }
        guard matched else { return nil }
        let session = BrowserSession(cookie: try SecureBytes.random(count: Self.tokenBytes), csrf: try SecureBytes.random(count: Self.tokenBytes),
                                     expires: .after(Self.sessionLifetime, on: clock))
        sessions.withLock { $0.append(session) }
        return Self.hex(session.cookie)
    }

    /// The browser session a cookie value names, if it is live.
    func session(cookie text: String?) -> BrowserSession? {
        guard let text, let presented = Self.bytes(hex: text) else { return nil }
        return sessions.withLock { sessions in
            sessions.removeAll { $0.expires.hasPassed }
            return sessions.first { $0.cookie == presented }
        }
    }

    /// Whether `text` is `session`'s CSRF token.
    func isCSRFToken(_ text: String?, of session: BrowserSession) -> Bool {
        guard let text, let presented = Self.bytes(hex: text) else { return false }
        return session.csrf == presented
    }

    /// Ends every browser session (the owner's "sign out everywhere", and the daemon's stop).
    public func endAll() {
        sessions.withLock { $0.removeAll() }
        launchTokens.withLock { $0.removeAll() }
    }

    static func hex(_ secret: SecureBytes) -> String {
        secret.withUnsafeBytes { bytes in bytes.map { String(format: "%02x", $0) }.joined() }
    }

    /// 64 lower-case hex digits into locked memory, or nil for anything else.
    static func bytes(hex text: String) -> SecureBytes? {
        let digits = Array(text.utf8)
        guard digits.count == tokenBytes * 2, let secret = try? SecureBytes(count: tokenBytes) else { return nil }
        let parsed = secret.withUnsafeMutableBytes { output -> Bool in
            for index in 0..<tokenBytes {
                guard let high = nibble(digits[2 * index]), let low = nibble(digits[2 * index + 1]) else { return false }
                output[index] = high << 4 | low
            }
            return true
        }
        return parsed ? secret : nil
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case 0x30...0x39: digit - 0x30
        case 0x61...0x66: digit - 0x61 + 10
        default: nil
        }
    }
}
