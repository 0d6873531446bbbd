import CryptoVault

/// What the console records beyond the library's own entries (SECURITY.md §8.1).
enum ConsoleAuditActions {
    /// A wait for a new device was started from the devices page (its listening address).
    static let pairStart = AuditAction("console.pair-start")
    /// A browser spent a launch URL and got a console session.
    static let signIn = AuditAction("console.sign-in")
}
