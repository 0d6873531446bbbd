internal import CSodium

/// One-time libsodium initialisation. `sodium_init` is safe to call repeatedly, but we run it once and
/// remember the outcome so every entry point can cheaply `try Sodium.ensureInitialized()`. A failure
/// throws (the caller reports it) instead of trapping.
public enum Sodium {
    private static let initialisationSucceeded: Bool = sodium_init() >= 0

    public static func ensureInitialized() throws {
        guard initialisationSucceeded else {
            throw CryptoVaultError(.libraryUnavailable, "libsodium could not be initialised")
        }
    }
}
