import AuditChain
import CryptoVault
import Writing

/// How this vault came to hold a project, as its audit log says (SECURITY.md §19.9; attack review
/// s6, A12): made here (`writing.project-create` with no `origin` detail), or made from a peer's
/// offer (`sync.project-added`, whose `peer` detail names the device the offer came from, after a
/// `writing.project-create` with origin `sync`). The last of these entries for the project stands.
///
/// Why the log and not a table: the question is asked only when an own device names an origin for
/// a project held here as the owner's own, which is rare, and the log already says it for every
/// project held before this was asked (a table would know only the projects made after it); the
/// log is append-only and verified (§8), so no later write can make a project made here look
/// made from an offer. An entry whose details do not open here says nothing.
enum ProjectProvenance: Equatable {
    case madeHere
    case madeFromOffer(of: DeviceID)
    case unknown

    /// How `vault` came to hold `project`: made here, when `sync_projects_made_here` recorded it
    /// (`exchange-7`, `ProjectsMadeHere`); the device whose offer made it, when
    /// `sync_project_sources` did (`exchange-5`); else, for a project made before those tables,
    /// what the audit log says (`recorded`).
    static func of(_ project: ProjectID, in vault: UnlockedVault) throws -> ProjectProvenance {
        let row = try vault.transaction { tx -> ProjectProvenance? in
            let store = SyncExchangeStore(database: tx.database)
            if try store.madeHere(project) { return .madeHere }
            return try store.source(of: project).map { .madeFromOffer(of: $0) }
        }
        return try row ?? recorded(project, in: vault)
    }

    /// What `vault`'s log says of `project` (reads the whole log: only for the fallback above).
    static func recorded(_ project: ProjectID, in vault: UnlockedVault) throws -> ProjectProvenance {
        let keys = try vault.auditKeys()
        let actions: Set<String> = [AuditAction.writingProjectCreate.name, AuditAction.syncProjectAdded.name]
        var provenance = ProjectProvenance.unknown
        for entry in try AuditLogReader(vault: vault.vault).entries() where entry.subjectID == project.bytes && actions.contains(entry.action) {
            guard let opened = try? AuditLogReader.details(of: entry, vaultID: vault.vault.vaultID, keys: keys) else { continue }
            let details = Dictionary(opened.map { ($0.name, $0.value) }) { first, _ in first }
            if entry.action == AuditAction.syncProjectAdded.name {
                provenance = details["peer"].flatMap { try? DeviceID(hex: $0) }.map { .madeFromOffer(of: $0) } ?? .unknown
            } else if details["origin"] == nil {
                provenance = .madeHere
            }
        }
        return provenance
    }
}
