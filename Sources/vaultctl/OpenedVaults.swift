import CryptoVault
import Foundation

/// The vaults a command opened, so that when it ends (successfully or not) each gets its
/// `finishCommand`: the audit log signs a checkpoint covering what the command recorded.
final class OpenedVaults: @unchecked Sendable {
    static let shared = OpenedVaults()

    private let lock = NSLock()
    private var vaults: [Vault] = []

    func add(_ vault: Vault) {
        lock.lock()
        defer { lock.unlock() }
        vaults.append(vault)
    }

    /// A checkpoint that cannot be made is reported but does not change the command's outcome: the
    /// entries are committed, and the next command's checkpoint will cover them.
    func finishAll() {
        lock.lock()
        let finishing = vaults
        vaults = []
        lock.unlock()
        for vault in finishing {
            do {
                try vault.finishCommand()
            } catch {
                Output.note("vaultctl: warning: could not sign an audit checkpoint: \(error)")
            }
        }
    }
}
