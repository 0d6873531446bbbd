import AuditChain
import CryptoVault
import PrivilegedSession

/// The names of privileged bundles for `vaultctl ls`. Without a purpose they are read through the
/// daemon's live session of the compartment, if there is one, and stay hidden as "(privileged)"
/// otherwise; with `--purpose` a one-command session is started on each privileged compartment
/// the first time one of its bundles is listed (recorded with the purpose), every name it reads is
/// recorded as a `session.read`, and `end()` ends the sessions and wipes their keys.
final class SessionNames {
    private let purpose: String?
    private let vault: UnlockedVault
    private let arguments: ParsedArguments?
    private var daemonServes = true
    private var sessions: [CompartmentID: PrivilegedProcessingSession] = [:]

    init(purpose: String?, vault: UnlockedVault, arguments: ParsedArguments? = nil) throws {
        self.purpose = purpose
        self.vault = vault
        self.arguments = arguments
    }

    func name(of bundle: StoredBundle) throws -> String {
        guard let purpose else { return daemonName(of: bundle) ?? "(privileged)" }
        let session = try sessions[bundle.compartment.id] ?? {
            let started = try PrivilegedProcessingSession.start(vault: vault, compartment: bundle.compartment,
                                                                actor: AuditLog.currentAccount(), purpose: purpose)
            sessions[bundle.compartment.id] = started
            return started
        }()
        return (try? session.storedName(bundle.bundleID)) ?? "(unreadable)"
    }

    /// The name through the daemon's live session, if a daemon serves the vault and holds one; once
    /// no daemon answers, it is not asked again.
    private func daemonName(of bundle: StoredBundle) -> String? {
        if let forwarded = CommandHost.current {
            return try? forwarded.sessions.newestSession(of: bundle.compartment).storedName(bundle.bundleID)
        }
        guard let arguments, daemonServes else { return nil }
        do {
            return try DaemonClient.sessionName(of: bundle.idString, arguments: arguments)
        } catch {
            daemonServes = false
            return nil
        }
    }

    func end() {
        for session in sessions.values { try? session.end() }
        sessions = [:]
    }
}
