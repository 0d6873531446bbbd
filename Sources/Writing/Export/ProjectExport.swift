import CryptoVault
import PrivilegedSession

/// A project written out of the vault as a file (issue 15, SECURITY.md §10.5): the library's one way
/// to a project's export, for vaultctl and any other caller alike. The plaintext leaves the vault, so
/// it passes the egress funnel (destination `file:PATH`) before a byte is written: the leak guard
/// scans it, the project's compartment policy decides, the decision is recorded (size and SHA-256,
/// never the text), and only what the funnel released is written, redacted when it says so. The
/// renderers and the project as read for them are internal to this module, so no caller gets the
/// file's bytes without passing here.
///
/// A privileged project is read only in a session of its compartment (`RecordAccess.session`; a
/// session is started for an actor and a purpose, both sealed in the audit log): without one the
/// export is refused (`privilegedSessionRequired`) before anything is opened, decided or written,
/// and the session is named in the egress record.
public struct ProjectExport {
    public let vault: UnlockedVault
    public let funnel: EgressFunnel

    /// `funnel` defaults to the vault's own (its policy, leak guard and devices).
    public init(vault: UnlockedVault, funnel: EgressFunnel? = nil) throws {
        self.vault = vault
        self.funnel = try funnel ?? EgressFunnel(vault: vault)
    }

    /// Writes the project as `format` to the file at `path` (a relative path is taken in the working
    /// directory), which appears only complete; an existing file is replaced only when `replacing`
    /// (a character device or FIFO is written into). Refused: nothing is written and no temporary
    /// file is left. Redacted: the file holds what the funnel released.
    public func write(_ projectID: ProjectID, as format: ExportFormat, access: RecordAccess, to path: String,
                      replacing: Bool = false) throws -> ExportOutcome {
        try format.checkTools()
        let (project, exported) = try read(projectID, access: access)
        // Made before the decision: a path that cannot be written is refused before anything is recorded.
        let file = try ExportFile(path, replacing: replacing)
        do {
            let outcome = try release(exported, of: project, as: format, access: access, to: file.path) { try file.write($0) }
            if outcome.written { try file.commit() } else { file.abandon() }
            return outcome
        } catch {
            file.abandon()
            throw error
        }
    }

    /// As `write(_:as:access:to:replacing:)`, into a stream the caller holds (standard output):
    /// `destination` names it in the egress record (`file:` + it), and `sink` is given the file's
    /// bytes only once the funnel has released them.
    public func write(_ projectID: ProjectID, as format: ExportFormat, access: RecordAccess, to destination: String,
                      into sink: ([UInt8]) throws -> Void) throws -> ExportOutcome {
        try format.checkTools()
        let (project, exported) = try read(projectID, access: access)
        return try release(exported, of: project, as: format, access: access, to: destination, into: sink)
    }

    /// The project read whole in one transaction, a privileged one refused first without a session.
    private func read(_ projectID: ProjectID, access: RecordAccess) throws -> (WritingProject, ExportedProject) {
        try vault.transaction { tx in
            let store = WritingStore(tx, access: access)
            let project = try store.project(projectID)
            try store.checkReadable(project)
            return (project, try store.exportedProject(project))
        }
    }

    /// Submits the rendered text to the funnel and hands `sink` the file made from what it released.
    private func release(_ exported: ExportedProject, of project: WritingProject, as format: ExportFormat, access: RecordAccess,
                         to path: String, into sink: ([UInt8]) throws -> Void) throws -> ExportOutcome {
        let egress = try funnel.submit(EgressRequest(
            destination: EgressDestination(kind: .file, id: path), compartments: [project.compartment],
            payload: Array(format.text(of: exported).utf8), session: access.session(of: project.compartment)))
        if let released = egress.released { try sink(try format.document(from: released)) }
        return ExportOutcome(egress: egress, format: format, path: path)
    }
}

/// What an export decided and wrote.
public struct ExportOutcome: Sendable {
    /// The funnel's decision, its record (destination, size and SHA-256 of the text, session) and findings.
    public let egress: EgressOutcome
    public let format: ExportFormat
    /// Where the file went, as the egress record names it (`file:` + this).
    public let path: String

    public var decision: EgressDecision { egress.decision }
    /// Whether the file was written (allowed or redacted); a refusal writes nothing.
    public var written: Bool { egress.released != nil }
}
