import AuditChain
import CryptoVault
import Writing

/// Whose project each project held from someone else's device is, as this vault's audit log says
/// (SECURITY.md §19.9, "Damaged exchange state"): what mending the exchange's tables puts back when
/// it had to drop a `sync_origins` row (attack review s6, P2). Dropping it is not on the safe side:
/// a project without an origin is the owner's own (shared on by `vaultctl share`, offered to own
/// devices as `mine`, written by them while the owner only views it). Every writer of an origin
/// records it: `sync.project-added` (access `editor` or `viewer`: the `origin` detail, or the `peer`
/// the project came from when none) and `sync.project-origin-learned` (`origin`); the last entry
/// of a project stands. An entry whose details cannot be opened here (a privileged compartment's,
/// sealed to its sessions: never someone else's anyway) says nothing.
struct SyncOriginHistory {
    private(set) var origins: [ProjectID: DeviceID] = [:]

    /// Replays `events`, oldest first.
    init(events: [VaultEvent]) {
        for event in events { take(event) }
    }

    /// Reads the vault's audit log (only reads; before the mend's transaction).
    init(_ vault: UnlockedVault) throws {
        let keys = try vault.auditKeys()
        let wanted: Set<String> = [AuditAction.syncProjectAdded.name, AuditAction.syncProjectOriginLearned.name]
        var events: [VaultEvent] = []
        for entry in try AuditLogReader(vault: vault.vault).entries() where wanted.contains(entry.action) {
            guard let details = try? AuditLogReader.details(of: entry, vaultID: vault.vault.vaultID, keys: keys) else { continue }
            events.append(VaultEvent(AuditAction(entry.action), compartmentID: entry.compartmentID, subjectID: entry.subjectID, details: details))
        }
        self.init(events: events)
    }

    private mutating func take(_ event: VaultEvent) {
        guard let subject = event.subjectID, let project = try? ProjectID(bytes: subject) else { return }
        let details = Dictionary(event.details.map { ($0.name, $0.value) }) { first, _ in first }
        let named = (details["origin"] ?? details["peer"]).flatMap { try? DeviceID(hex: $0) }
        switch event.action {
        case .syncProjectAdded:
            // Made as the owner's own (`mine`): no origin, until an entry says otherwise.
            origins[project] = details["access"] == SyncAccess.mine.name ? nil : named
        case .syncProjectOriginLearned:
            if let origin = details["origin"].flatMap({ try? DeviceID(hex: $0) }) { origins[project] = origin }
        default: break
        }
    }
}
