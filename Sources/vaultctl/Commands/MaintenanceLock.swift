import Appliance
import CryptoVault
import Foundation

/// The vault's daemon lock (`DaemonLock(vaultDirectory:)`, whatever socket a daemon listens on),
/// held by a maintenance command for as long as it runs (`repair`, `compact`): a `vaultctl serve` on
/// the vault would go on writing it (its sync, its console, the commands it runs for clients) while
/// the command rebuilds or rewrites it, so the command is refused while one serves, and no serve
/// starts until the command ends.
enum MaintenanceLock {
    /// The lock, or nil when there is no vault folder (the open then says what is wrong). Refused
    /// (exit 73) while a serve holds it; `conflict` says what the command would do under the daemon.
    static func holdingTheVault(_ arguments: ParsedArguments, conflict: String) throws -> DaemonLock? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: VaultLocation.realDirectory(arguments), isDirectory: &isDirectory),
              isDirectory.boolValue else { return nil }
        do {
            return try DaemonLock(vaultDirectory: VaultLocation.realDirectory(arguments))
        } catch {
            guard error.code == .daemonAlreadyRunning else { throw error }
            throw CommandError(message: "'vaultctl serve' is running on this vault, and \(conflict); nothing was changed", exitCode: .cannotCreate,
                               hint: "stop it ('vaultctl serve --stop', or end the serve), run this again, then start it again")
        }
    }
}
