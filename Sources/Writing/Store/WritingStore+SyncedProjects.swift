import CryptoVault

/// The one door sync needs to make a project (SECURITY.md §19.9): a project another device offered
/// keeps the id it has there, so both devices' change records name the same project. It gets a
/// compartment of this vault's own, as every project does, with the register and privileged flag
/// the offer gave. Everything else is `createProject`'s: checked, sealed, and recorded in the
/// transaction (`compartment.create`, then `writing.project-create` with origin `sync`).
extension WritingStore {
    @discardableResult
    public func addSyncedProject(_ id: ProjectID, named name: String, register: Register, kind: ProjectKind,
                                 privileged: Bool) throws -> WritingProject {
        let name = try Self.checkedName(name, "a project name")
        guard try projectTable.row(id) == nil else { throw WritingError(.invalidIdentifier, "a project \(id) exists already") }
        let compartment = try syncedCompartment(for: id, register: register, privileged: privileged)
        let row = ProjectTable.Row(id: id, compartmentID: compartment.id, register: register, kind: kind, createdAt: now, archivedAt: nil)
        try projectTable.insert(row)
        let project = WritingProject(row, compartment: compartment)
        try sealName(name, of: project)
        try record(.writingProjectCreate, project, subject: project.id,
                   details: [.init("register", register.rawValue), .init("kind", kind.rawValue), .init("origin", "sync")])
        return project
    }

    /// Makes the project view-only here, or writable again, as the device that shared it says
    /// (SECURITY.md §19.9): a view-only project refuses every change this device would make
    /// (`.viewOnly`), and takes what sync receives. Recorded only when it changes.
    public func setSyncedViewOnly(_ id: ProjectID, _ viewOnly: Bool, from device: String) throws {
        let project = try self.project(id)
        guard project.isViewOnly != viewOnly else { return }
        try projectTable.setViewOnly(id, viewOnly)
        try record(.writingProjectViewOnly, project, subject: id, details: [.init("view-only", viewOnly ? "yes" : "no"), .init("from", device)])
    }

    /// `project <id>`, as `createProject` names it; a device the project was also shared with as a
    /// compartment may hold that name already, and then the project's own is `project <id> (synced)`.
    /// A compartment of this vault's own under one of those names, which no project holds (the
    /// project dropped by `repair --from` for its damage: project compartments stay, with their
    /// keys), is the project's: it is made again in it, as `restoreProject` restores one, when its
    /// privileged flag is the offer's (rows14, session 14: the second name taken too threw
    /// `compartmentExists` out of the whole exchange, at every run). Both names held otherwise:
    /// `compartmentExists`, naming why, which refuses this project alone.
    private func syncedCompartment(for id: ProjectID, register: Register, privileged: Bool) throws -> VaultCompartment {
        var held: [String] = []
        for name in ["project \(id.hex)", "project \(id.hex) (synced)"] {
            do {
                return try transaction.createCompartment(named: name, register: register, privileged: privileged)
            } catch let error as CryptoVaultError where error.code == .compartmentExists {
                guard let kept = try ownCompartment(named: name) else {
                    held.append("'\(name)' is another device's shared compartment")
                    continue
                }
                guard kept.isPrivileged == privileged else {
                    held.append("'\(name)' is this vault's \(kept.isPrivileged ? "privileged" : "ordinary") compartment, the offer's project is not")
                    continue
                }
                return kept
            }
        }
        throw CryptoVaultError(.compartmentExists, held.joined(separator: "; "))
    }

    /// This vault's own live compartment named `name` (a shared one is not), or nil.
    private func ownCompartment(named name: String) throws -> VaultCompartment? {
        do { return try transaction.vault.compartment(named: name) } catch let error as CryptoVaultError where error.code == .compartmentNotFound {
            return nil
        }
    }
}
