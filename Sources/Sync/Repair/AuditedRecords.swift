import AuditChain
import CryptoVault
import PrivilegedSession
import Writing

/// What this vault's audit log says it held (SECURITY.md §19.10): for each change record it
/// committed (`sync.record-commit`) or took from a peer (`sync.record-receive`), the record's hash
/// by project, device and counter. A repair checks every record a device sends against it.
struct AuditedRecords {
    struct Key: Hashable {
        let project: ProjectID
        let device: DeviceID
        let counter: UInt64
    }

    private(set) var hashes: [Key: String] = [:]

    /// Reads the log's sync entries of `projects`. A privileged compartment's details are opened only
    /// when `sessions` holds a session of it (SECURITY.md §10.7), as the repair's do.
    init(_ vault: UnlockedVault, projects: Set<ProjectID>, own device: DeviceID, sessions: Set<CompartmentID>,
         privileged: Set<CompartmentID>) throws {
        let keys = try vault.auditKeys()
        let actions: Set<String> = [AuditAction.syncRecordCommit.name, AuditAction.syncRecordReceive.name]
        for entry in try AuditLogReader(vault: vault.vault).entries() where actions.contains(entry.action) {
            guard entry.subjectID.count == 16, let project = try? ProjectID(bytes: entry.subjectID), projects.contains(project) else { continue }
            if let compartment = entry.compartmentID, privileged.contains(compartment), !sessions.contains(compartment) { continue }
            let details = Dictionary(try AuditLogReader.details(of: entry, vaultID: vault.vault.vaultID, keys: keys).map { ($0.name, $0.value) }) { first, _ in first }
            guard let hash = details["hash"], let counter = details["counter"].flatMap(UInt64.init) else { continue }
            let author = entry.action == AuditAction.syncRecordCommit.name ? device
                : details["device"].flatMap { try? DeviceID(hex: $0) }
            guard let author else { continue }
            hashes[Key(project: project, device: author, counter: counter)] = hash
        }
    }
}
