import Appliance
import AuditChain
import CryptoVault
import PrivilegedSession

/// Which audit entries' details `audit log --details` may show (SECURITY.md §10): the details of an
/// entry of a privileged compartment (a file name, a purpose that may name a patient) are opened only
/// inside a session of that compartment, the running daemon's or a one-command session opened here
/// with `--purpose` (recorded as session.start and session.end). Outside one they are withheld.
final class PrivilegedDetails {
    static let purposeOption = Option("--purpose", value: "TEXT",
                                      "with --details, open the details of privileged compartments (all of them, or the one --compartment "
                                      + "names) in a one-command session, recorded with this purpose; without it, only those of compartments "
                                      + "with a live session in the running daemon are shown")

    /// Privileged compartments whose details stay sealed.
    let withheld: Set<CompartmentID>
    private let sessions: [PrivilegedProcessingSession]

    private init(withheld: Set<CompartmentID>, sessions: [PrivilegedProcessingSession]) {
        self.withheld = withheld
        self.sessions = sessions
    }

    /// Opens what the command line allows: `--purpose` starts a session for each privileged
    /// compartment shown; otherwise the daemon's live sessions, if one serves the vault, say which.
    static func open(_ arguments: ParsedArguments, vault: UnlockedVault, only compartmentName: String?) throws -> PrivilegedDetails {
        let privileged = try vault.compartments().filter { $0.isPrivileged && (compartmentName == nil || $0.name == compartmentName) }
        guard let purpose = arguments.value("--purpose") else {
            let open = try daemonSessionCompartments(arguments)
            return PrivilegedDetails(withheld: Set(privileged.filter { !open.contains($0.name) }.map(\.id)),
                                     sessions: [])
        }
        var sessions: [PrivilegedProcessingSession] = []
        do {
            for compartment in privileged {
                sessions.append(try PrivilegedProcessingSession.start(vault: vault, compartment: compartment,
                                                                      actor: AuditLog.currentAccount(), purpose: purpose))
            }
        } catch {
            for session in sessions { try? session.end() }
            throw error
        }
        return PrivilegedDetails(withheld: [], sessions: sessions)
    }

    /// Ends the one-command sessions still open (recorded), once the log is shown.
    func close() throws {
        for session in sessions where session.isHoldingKeys { try session.end() }
    }

    func isWithheld(_ entry: AuditEntry) -> Bool {
        entry.compartmentID.map(withheld.contains) ?? false
    }

    /// Names of the compartments with a live session in the daemon serving this vault; none if no daemon answers.
    private static func daemonSessionCompartments(_ arguments: ParsedArguments) throws -> Set<String> {
        if let forwarded = CommandHost.current { return Set(forwarded.sessions.live().map(\.compartment.name)) }
        let reply: ControlMessage
        do {
            reply = try DaemonClient.ask(arguments, ControlMessage(["op": "session.list"]))
        } catch let error as ApplianceError where error.code == .noDaemon || error.code == .socketPathTooLong {
            return []
        }
        return Set(try SessionListing.parse(reply.bytes("sessions")).compactMap { $0["compartment"] as? String })
    }
}
