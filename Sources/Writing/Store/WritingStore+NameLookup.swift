import CryptoVault
import Foundation

/// Finding a project by its name without opening it (SECURITY.md §14.1). Beside the sealed name,
/// the project's row keeps `name_lookup`: a keyed hash of the name, bound to the project's id, under
/// a key of the vault's master key (`NameLookupKey`, domain "writing project name"). A name typed on
/// the command line is compared with it and nothing is opened, so `--purpose` starts its session on
/// the one project the name finds, rather than on every privileged project to read their names.
extension WritingStore {
    static let nameLookupDomain = "writing project name"

    /// What a project's lookup hash says of a name.
    public enum NameMatch: Sendable, Equatable {
        case named
        case namedOtherwise
        /// The row has no lookup hash (the project was made before migration model-2 and its name
        /// has not been written, nor read in a session, since): only opening its name can tell.
        case unknown
    }

    /// name_lookup = the first 16 bytes of HMAC-SHA-256(lookup key, project id (16) || name as UTF-8, NFC).
    public static func nameLookup(of project: ProjectID, named name: String, key: NameLookupKey) -> [UInt8] {
        Array(key.hash(project.bytes + Array(name.precomposedStringWithCanonicalMapping.utf8)).prefix(16))
    }

    /// What each project's lookup hash says of `name`, by project: no record is opened, so no session
    /// is needed and nothing is recorded (the key is derived once for them all).
    public func nameMatches(_ name: String) throws -> [ProjectID: NameMatch] {
        let key = try transaction.vault.nameLookupKey(domain: Self.nameLookupDomain)
        var matches: [ProjectID: NameMatch] = [:]
        let live = Set(try projects().map(\.id))  // a shredded project's name is no name here (N-s13-1), nor a damaged row's
        for case .whole(let row, _) in try projectTable.all() where live.contains(row.id) {
            guard let stored = row.nameLookup else { matches[row.id] = .unknown; continue }
            let typed = Self.nameLookup(of: row.id, named: name, key: key)
            matches[row.id] = constantTimeEquals(stored, typed) ? .named : .namedOtherwise
        }
        return matches
    }

    /// The damaged rows (`damagedProjects`) whose lookup hash says `name`: a name typed for a project
    /// whose row is damaged is refused as that damage (65, naming it), not as "no project" (V-7).
    /// Read only when no whole project has the name; nothing is opened.
    public func damagedProjects(named name: String) throws -> [DamagedProjectRow] {
        let key = try transaction.vault.nameLookupKey(domain: Self.nameLookupDomain)
        return try damagedProjects().filter { damage in
            guard let id = damage.id, let stored = damage.nameLookup else { return false }
            return constantTimeEquals(stored, Self.nameLookup(of: id, named: name, key: key))
        }
    }

    /// Seals `name` as the project's and writes its lookup hash beside it. Every door that writes a
    /// project's name comes through here: create, rename, sync's create and rename, repair.
    func sealName(_ name: String, of project: WritingProject) throws {
        try seal(Array(name.utf8), at: try WritingRecord.projectName(project.id), of: project)
        try writeNameLookup(name, of: project.id)
    }

    /// The project's name (`name(of:)`), and, when its row has no lookup hash yet, the hash of the
    /// name just read written beside it, so the next command finds it by name without opening it.
    /// The hash is derived from what is sealed and changes no record: it is no audit event of its
    /// own, and comes with the read that opened the name (its `record.open`, in a session when the
    /// project is privileged).
    public func nameKeepingLookup(of project: WritingProject) throws -> String {
        let name = try name(of: project)
        if try projectTable.row(project.id)?.nameLookup == nil { try writeNameLookup(name, of: project.id) }
        return name
    }

    private func writeNameLookup(_ name: String, of project: ProjectID) throws {
        let key = try transaction.vault.nameLookupKey(domain: Self.nameLookupDomain)
        try projectTable.setNameLookup(project, Self.nameLookup(of: project, named: name, key: key))
    }
}
