import AuditChain
import CryptoVault
import PrivilegedSession

/// The names of privileged bundles for `vaultctl ls`. Without a purpose they stay hidden, as
/// "(privileged)"; with `--purpose` a one-command session is started on each privileged compartment
/// the first time one of its bundles is listed (recorded with the purpose), every name it reads is
/// recorded as a `session.read`, and `end()` ends the sessions and wipes their keys.
final class SessionNames {
    private let purpose: String?
    private let vault: UnlockedVault
    private var sessions: [[UInt8]: PrivilegedProcessingSession] = [:]

    init(purpose: String?, vault: UnlockedVault) throws {
        self.purpose = purpose
        self.vault = vault
    }

    func name(of bundle: StoredBundle) throws -> String {
        guard let purpose else { return "(privileged)" }
        let session = try sessions[bundle.compartment.uuid] ?? {
            let started = try PrivilegedProcessingSession.start(vault: vault, compartment: bundle.compartment,
                                                                actor: AuditLog.currentAccount(), purpose: purpose)
            sessions[bundle.compartment.uuid] = started
            return started
        }()
        return (try? session.storedName(bundle.bundleID)) ?? "(unreadable)"
    }

    func end() {
        for session in sessions.values { try? session.end() }
        sessions = [:]
    }
}
