import CryptoVault

/// The door `vaultctl repair --from DEVICE` needs (SECURITY.md §19.10): after the writing store was
/// emptied and made again, a project comes back with the id it had and in the compartment it had
/// (its keys, register and privileged flag are this vault's own, never the peer's). Everything else
/// is `createProject`'s: checked, sealed and recorded (`writing.project-create`, origin `repair`).
extension WritingStore {
    @discardableResult
    public func restoreProject(_ id: ProjectID, named name: String, kind: ProjectKind, in compartment: VaultCompartment) throws -> WritingProject {
        let name = try Self.checkedName(name, "a project name")
        guard try projectTable.row(id) == nil else { throw WritingError(.invalidIdentifier, "a project \(id) exists already") }
        let row = ProjectTable.Row(id: id, compartmentID: compartment.id, register: compartment.register, kind: kind, createdAt: now, archivedAt: nil)
        try projectTable.insert(row)
        let project = WritingProject(row, compartment: compartment)
        try sealName(name, of: project)
        try record(.writingProjectCreate, project, subject: project.id,
                   details: [.init("register", compartment.register.rawValue), .init("kind", kind.rawValue), .init("origin", "repair")])
        return project
    }
}
