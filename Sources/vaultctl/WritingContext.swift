import Appliance
import AuditChain
import CryptoVault
import Foundation
import PrivilegedSession
import Registers
import Writing

/// What the project, doc and template commands share: the unlocked vault, how each project's
/// sealed records are read, and how PROJECT, DOC and CHAPTER arguments (a name or title, or an id)
/// become ids.
///
/// An ordinary project is read with the vault's own access. A privileged one only in a session of
/// its compartment: with `--purpose`, a one-command session started the first time the project is
/// read (recorded with the purpose) and ended with the command; in the daemon, its newest session
/// of the compartment ('vaultctl session start'); otherwise the read is refused (exit 77).
final class WritingContext {
    let vault: UnlockedVault
    private let purpose: String?
    /// `--read-only`: a kept copy of a damaged store is read (`doc show|list --read-only`).
    private let readsKeptCopy: Bool
    private var sessions: [CompartmentID: PrivilegedProcessingSession] = [:]
    /// The project each one-command session was started for, whose writing session ends with it.
    private var sessionProjects: [CompartmentID: ProjectID] = [:]
    /// The projects whose damaged name this command has warned of (`DamagedProjectName`).
    private var warnedNames: Set<ProjectID> = []

    static let purposeOption = Option("--purpose", value: "TEXT",
                                      "why you read it; a privileged project is read only in a session: this opens a one-command session "
                                      + "(sealed in the audit log; name no patient in it)")
    /// Said in the help of every command that reads a project.
    static let sessionNote = """
        A privileged project (healthcare and legal ones by default) is read only in a privileged
        processing session: give --purpose TEXT for a one-command session, or, while 'vaultctl serve'
        runs, start one with 'vaultctl session start --compartment "project ID"'.
        """

    init(_ arguments: ParsedArguments) throws {
        vault = try VaultLocation.unlock(arguments)
        purpose = arguments.value("--purpose")
        readsKeptCopy = arguments.has("--read-only")
    }

    deinit { end() }

    /// Ends the one-command sessions. Each first ends this device's writing session of its project,
    /// stamping its end (SECURITY.md §15.5: start, end, documents, word change; never a word): the
    /// privileged session that let the command write ends now, so the writing session does too,
    /// rather than waiting for a later visit that may never come.
    func end() {
        for (compartment, session) in sessions {
            if let project = sessionProjects[compartment] { endWritingSession(of: project, in: session) }
            try? session.end()
        }
        // In the daemon, a search in a one-command session left that project's index in the daemon's
        // cache: it goes now with the session, not at the cache's next use (SECURITY.md §15.4).
        if !sessions.isEmpty, CommandHost.current != nil { vault.dropSearchIndexes() }
        sessions = [:]
        sessionProjects = [:]
    }

    /// A failure here leaves the session open, as before (its end is stamped at the next visit or
    /// 'vaultctl activity --end'); the command's own result stands, so it is said, not thrown.
    private func endWritingSession(of project: ProjectID, in session: PrivilegedProcessingSession) {
        do {
            try vault.transaction { tx in try WritingStore(tx, access: .session(session)).endWritingSessions(in: project, now: true) }
        } catch {
            Output.note("vaultctl: warning: the writing session's end was not stamped now (\(error)); 'vaultctl activity --end' stamps it")
        }
    }

    /// How `project`'s records are read: nil when it is privileged and no session can read it.
    func access(for project: WritingProject) throws -> RecordAccess? {
        guard project.isPrivileged else { return .vault }
        if let session = sessions[project.compartment.id] { return .session(session) }
        if let purpose {
            let session = try PrivilegedProcessingSession.start(vault: vault, compartment: project.compartment,
                                                                actor: AuditLog.currentAccount(), purpose: purpose)
            sessions[project.compartment.id] = session
            sessionProjects[project.compartment.id] = project.id
            return .session(session)
        }
        return daemonSession(of: project).map { .session($0) }
    }

    /// The daemon's newest session of the project's compartment, when this command runs in the daemon.
    private func daemonSession(of project: WritingProject) -> PrivilegedProcessingSession? {
        guard let forwarded = CommandHost.current else { return nil }
        return try? forwarded.sessions.newestSession(of: project.compartment)
    }

    /// How `project` is read without starting a session for it: an ordinary one with the vault's
    /// access, a privileged one only in a session this command or the daemon holds already.
    private func accessWithoutNewSession(for project: WritingProject) -> RecordAccess? {
        guard project.isPrivileged else { return .vault }
        return (sessions[project.compartment.id] ?? daemonSession(of: project)).map { .session($0) }
    }

    func requireAccess(for project: WritingProject) throws -> RecordAccess {
        guard let access = try access(for: project) else {
            throw WritingError(.privilegedSessionRequired, "\(WritingContext.term(.project, project.register)) \(project.id) is privileged: "
                               + "it is read only inside a privileged processing session")
        }
        return access
    }

    /// Runs `body` in one transaction with a store that reads `project` (a session when it needs one).
    func store<Result>(for project: WritingProject, _ body: (WritingStore) throws -> Result) throws -> Result {
        let access = try requireAccess(for: project)
        return try sayingRefusals(of: project) { try vault.transaction { tx in try body(WritingStore(tx, access: access)) } }
    }

    /// `store(for:)` with the vault's own access, for what changes the project's row alone (its
    /// name, archive mark, register), whatever the project: its refusals said alike.
    func rowStore<Result>(for project: WritingProject, _ body: (WritingStore) throws -> Result) throws -> Result {
        try sayingRefusals(of: project) { try vault.transaction { tx in try body(WritingStore(tx)) } }
    }

    /// Runs `body`, its store's refusals said in the project's words; a view-only refusal says the
    /// one reason that holds (`ViewOnlyRefusal`: a viewer's, or a wait for this device's own
    /// records naming the devices it waits for; review 17 s12, N-s12-3, F17-8).
    private func sayingRefusals<Result>(of project: WritingProject, _ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as WritingError {
            if error.code == .viewOnly, let reason = try ViewOnlyRefusal.refusal(of: project, in: vault) { throw reason }
            throw WritingVocabulary.Refusal(error: error, register: project.register)
        }
    }

    /// The project's name, or nil when it is privileged and no session can read it. A row without a
    /// lookup hash gets it from the name read (`nameKeepingLookup`): 'project list --purpose' once
    /// lets every later command find a project made before migration model-2 by its name.
    func name(of project: WritingProject) throws -> String? {
        guard let access = try access(for: project) else { return nil }
        return try vault.transaction { tx in try WritingStore(tx, access: access).nameKeepingLookup(of: project) }
    }

    /// `name(of:)` for a listing: a name that does not open is that project's damage (R15-8),
    /// warned once and handed back, so the listing goes on with the other projects.
    func listedName(of project: WritingProject) throws -> Result<String?, DamagedProjectName> {
        let listed = try DamagedProjectName.listed(project.id) { try name(of: project) }
        if case .failure(let damage) = listed { warn(damage) }
        return listed
    }

    /// Warns of a damaged name once per command, however often the name is met.
    private func warn(_ damage: DamagedProjectName) {
        guard warnedNames.insert(damage.project).inserted else { return }
        Output.note(damage.warning)
    }

    func projects() throws -> [WritingProject] { try vault.transaction { tx in try WritingStore(tx).projects() } }

    /// PROJECT: its id (32 hex digits), or its name; a name two projects have is refused.
    ///
    /// A privileged project's name is sealed in its compartment and opens only in a session, so a
    /// name is compared with its lookup hash instead (SECURITY.md §14.1): nothing is opened, and
    /// `--purpose` then starts its session on the one project the name finds. Reading every
    /// privileged project's name to compare it would start a session, recorded with this purpose, on
    /// every other client's chart. A row without a hash (made before migration model-2) is compared
    /// only where a session is held already; otherwise it is not opened, and the refusal says how to
    /// name it. An ordinary project's name is read and compared, as the vault's own access allows.
    func project(_ text: String) throws -> WritingProject {
        let project = try resolve(text)
        // A project with a damaged row in one of its tables is refused, naming it (R15-1): its
        // documents or versions would read partly, or not at all, with an error that names nothing.
        // A copy 'vaultctl repair' kept is read (--read-only) for the words only it holds: its damage
        // is known, and what of it opens is what the owner asks for (SECURITY.md §19.10, step 4).
        if !readsKeptCopy { try vault.transaction { tx in try WritingStore(tx).refuseDamagedRows(of: project.id) } }
        return project
    }

    private func resolve(_ text: String) throws -> WritingProject {
        let all = try projects()
        if let id = try? ProjectID(hex: text) {
            if let found = all.first(where: { $0.id == id }) { return found }
            if let damage = try vault.transaction({ tx in try WritingStore(tx).damagedProject(id) }) { throw Self.refusal(damage) }
        }
        let name = text.precomposedStringWithCanonicalMapping
        let hashes = try vault.transaction { tx in try WritingStore(tx).nameMatches(name) }
        var matches: [WritingProject] = []
        var untold = 0
        for project in all {
            switch try match(project, named: name, byHash: hashes[project.id] ?? .unknown) {
            case .named: matches.append(project)
            case .namedOtherwise: break
            case .unknown: untold += 1
            }
        }
        guard matches.count <= 1 else {
            throw WritingError(.ambiguousName, "\(matches.count) projects are named '\(text)'; give the id ('vaultctl project list' shows it)")
        }
        // A privileged project made before migration model-2 has no hash and is not opened to
        // compare, so it may carry this name too: taking the one hash match would put a note meant
        // for that chart into this one, where reading both names would have refused the name.
        if matches.count == 1, untold > 0 {
            throw WritingError(.ambiguousName, "'\(text)' names a project, but \(untold) privileged project(s) made before this "
                               + "version keep their names sealed until a session reads them and may be named '\(text)' too; give "
                               + "the id, or run 'vaultctl project list --purpose TEXT' once (it reads each name in a recorded session)")
        }
        guard let project = matches.first else {
            guard untold == 0 else {
                throw WritingError(.projectNotFound, "no project is named '\(text)' that can be found without opening it: \(untold) privileged "
                                   + "project(s) made before this version keep their names sealed until a session reads them; give the "
                                   + "id, or run 'vaultctl project list --purpose TEXT' once (it reads each name in a recorded session)")
            }
            // A project whose row is damaged is left out of `projects`; its name is its damage (V-7).
            if let damage = try vault.transaction({ tx in try WritingStore(tx).damagedProjects(named: name) }).first { throw Self.refusal(damage) }
            // The copy in memory reads only what a sync brought: the vault's own projects are there, unread (F20-3).
            if let reason = InMemoryMode.reason {
                throw WritingError(.projectNotFound, "no project '\(text)' is read in in-memory mode (\(reason)): only what a sync from an "
                                   + "own device brought into the copy in memory is; 'vaultctl serve' with 'vaultctl sync now' reads that "
                                   + "device's copy, 'vaultctl repair --from DEVICE' rebuilds the store")
            }
            throw WritingError(.projectNotFound, "no project '\(text)'")
        }
        return project
    }

    /// The refusal of a project whose row is damaged: 65, naming it and what mends it.
    private static func refusal(_ damage: DamagedProjectRow) -> WritingError {
        WritingError(.damagedRecord, damage.problem + "; 'vaultctl repair' mends it")
    }

    /// Whether `project` is named `name`: a privileged project by its lookup hash when it has one,
    /// otherwise by reading its name, but only as `accessWithoutNewSession` allows (else `.unknown`).
    /// A name that does not open is that project's damage (R15-8): its lookup hash answers for it
    /// when it has one (the hash is kept apart from the sealed name), else it is named otherwise.
    private func match(_ project: WritingProject, named name: String, byHash: WritingStore.NameMatch) throws -> WritingStore.NameMatch {
        if project.isPrivileged, byHash != .unknown { return byHash }
        guard let access = accessWithoutNewSession(for: project) else { return .unknown }
        do {
            let read = try vault.transaction { tx in try WritingStore(tx, access: access).nameKeepingLookup(of: project) }
            return read == name ? .named : .namedOtherwise
        } catch {
            guard let damage = DamagedProjectName(project.id, error) else { throw error }
            warn(damage)
            return byHash == .unknown ? .namedOtherwise : byHash
        }
    }

    /// DOC or CHAPTER in `project`: its id, or its title (the one node with it).
    func node(_ text: String, in project: WritingProject) throws -> BinderNode {
        if let id = try? NodeID(hex: text) { return try store(for: project) { try $0.node(id, in: project.id) } }
        let nodes = try store(for: project) { try $0.nodes(in: project.id) }
        let matches = nodes.filter { $0.title == text.precomposedStringWithCanonicalMapping }
        guard matches.count <= 1 else {
            throw WritingError(.ambiguousName, "\(matches.count) items are titled '\(text)'; give the id ('vaultctl doc list' shows it)")
        }
        guard let node = matches.first else {
            throw WritingError(.nodeNotFound, "nothing titled '\(text)' in the \(WritingContext.term(.project, project.register))")
        }
        return node
    }

    /// The register's word for `key` (singular or plural), or the model's name when the register hides it.
    static func term(_ key: TermKey, _ register: Register, plural: Bool = false) -> String {
        let lexicon = Lexicon(register)
        return (plural ? lexicon.plural(key) : lexicon.singular(key)) ?? key.rawValue
    }

    /// `count` with the register's word for `key`, plural unless it is 1: "2 redlines", "1 note".
    static func counted(_ count: Int, _ key: TermKey, _ register: Register) -> String {
        "\(count) \(term(key, register, plural: count != 1))"
    }

    /// The register's word for `key` starting a sentence: "Redline", "Matter".
    static func capitalizedTerm(_ key: TermKey, _ register: Register) -> String {
        let word = term(key, register)
        return word.prefix(1).uppercased() + word.dropFirst()
    }

    static func term(of kind: NodeKind, _ register: Register, plural: Bool = false) -> String {
        term(kind == .chapter ? .chapter : .scene, register, plural: plural)
    }

    static func register(_ arguments: ParsedArguments, _ name: String = "--register") throws -> Register? {
        guard let text = arguments.value(name) else { return nil }
        guard let register = Register(rawValue: text) else {
            throw UsageError(message: "unknown register '\(text)' (one of: \(Register.allCases.map(\.rawValue).joined(separator: ", ")))",
                             usage: arguments.usage)
        }
        return register
    }
}
