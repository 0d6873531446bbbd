import CryptoVault
import Synchronization
import Writing

/// The replicas of projects this process keeps between sync steps (SECURITY.md §19.5), so that a
/// step extends a project's replica with the records stored since (each opened and verified once)
/// instead of rebuilding it from every stored record, and reads again only the documents written
/// since the replica last agreed with them.
///
/// An entry is kept only once the transaction that made it has committed (`transaction(in:_:)`),
/// and is taken out while a transaction works on it. It is used only when it is sure to be what
/// the vault holds: the same unlocked vault (held weakly: a locked vault's entries are dropped),
/// the same device and signing keys, and the project's stored records, read in the order they were
/// stored, beginning with exactly the records it holds (compared hash by hash from the rows' clear
/// columns). Anything else (a record gone, rows rewritten by another process, another set of keys)
/// rebuilds the replica from every stored record, as an uncached step does. Records another process
/// stored are taken like any new ones. Which documents were written since is `WritingChangeMarks`'
/// answer, or, when it cannot know (another process wrote), every document.
///
/// A privileged project's replica is never kept: its plaintext exists only inside a session of its
/// compartment (SECURITY.md §10), and sessions end with each step: only where its store last had
/// every change committed as records is kept (`SyncSettledMark`: a change mark and a digest of
/// clear columns), so an exchange with nothing of it to carry opens no session (review 17 s10,
/// N-s10-6). Neither is anything written: the cache is this process's memory only, at most
/// `maximumProjects` replicas, least recently used dropped first, and `maximumSettled` marks.
public final class SyncReplicaCache: Sendable {
    /// The daemon's cache: its exchange (`SyncEndpoint`) uses it, whatever the step.
    public static let shared = SyncReplicaCache()
    public static let maximumProjects = 8
    /// Settled marks kept per process before they are all forgotten (each project then settles at its next step).
    static let maximumSettled = 4_096

    /// A replica known to be what the vault held when its transaction committed.
    struct Entry: Sendable {
        weak var vault: UnlockedVault?
        var replica: SyncReplica
        /// The hashes of the stored records it holds, in the order their rows were stored.
        var hashes: [[UInt8]]
        /// Where every document of the project showed what the replica shows (nil: not known).
        var documentsAgree: WritingChangeMarks.Mark?
    }

    private struct Key: Hashable {
        let vault: ObjectIdentifier
        let project: ProjectID
    }

    private struct State: Sendable {
        var entries: [Key: (entry: Entry, used: UInt64)] = [:]
        var uses: UInt64 = 0
        var settled: [Key: SyncSettledMark] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// One transaction's use of the cache: the entries it took and worked on, kept in the cache
    /// when the transaction has committed, forgotten if it did not.
    public final class Staging {
        let cache: SyncReplicaCache
        var entries: [ProjectID: Entry] = [:]
        /// What the transaction's steps leave to do once it has committed (`HeldDocuments` changes).
        var committed: [() -> Void] = []
        /// Privileged projects' settled marks to keep (nil: to forget) once it has committed.
        var settled: [ProjectID: SyncSettledMark?] = [:]

        init(cache: SyncReplicaCache) { self.cache = cache }

        /// Runs `action` once the transaction has committed, never if it rolls back.
        func afterCommit(_ action: @escaping () -> Void) { committed.append(action) }

        /// The project's entry: this transaction's, else the cache's (taken out of it).
        func take(_ project: ProjectID, of vault: UnlockedVault) -> Entry? {
            entries.removeValue(forKey: project) ?? cache.take(project, of: vault)
        }

        func keep(_ entry: Entry, of project: ProjectID) { entries[project] = entry }

        /// Keeps `mark` as where the privileged `project` settled, or forgets the one kept (nil).
        func settle(_ project: ProjectID, _ mark: SyncSettledMark?) { settled.updateValue(mark, forKey: project) }
    }

    /// Runs `body` in one vault transaction with a staging of this cache; what it staged is kept
    /// once the transaction has committed.
    public func transaction<Result>(in vault: UnlockedVault, _ body: (VaultTransaction, Staging) throws -> Result) throws -> Result {
        let staging = Staging(cache: self)
        let result = try vault.transaction { transaction in try body(transaction, staging) }
        for (project, entry) in staging.entries { keep(entry, of: project) }
        for (project, mark) in staging.settled { keepSettled(mark, of: project, in: vault) }
        for action in staging.committed { action() }
        return result
    }

    private func take(_ project: ProjectID, of vault: UnlockedVault) -> Entry? {
        state.withLock { state in
            state.entries = state.entries.filter { $0.value.entry.vault != nil }
            return state.entries.removeValue(forKey: Key(vault: ObjectIdentifier(vault), project: project))?.entry
        }
    }

    private func keep(_ entry: Entry, of project: ProjectID) {
        guard let vault = entry.vault else { return }
        state.withLock { state in
            state.uses += 1
            state.entries[Key(vault: ObjectIdentifier(vault), project: project)] = (entry, state.uses)
            state.entries = state.entries.filter { $0.value.entry.vault != nil }
            while state.entries.count > Self.maximumProjects, let oldest = state.entries.min(by: { $0.value.used < $1.value.used }) {
                state.entries[oldest.key] = nil
            }
        }
    }

    private func keepSettled(_ mark: SyncSettledMark?, of project: ProjectID, in vault: UnlockedVault) {
        state.withLock { state in
            state.settled = state.settled.filter { $0.value.vault != nil }
            if state.settled.count >= Self.maximumSettled { state.settled = [:] }
            state.settled[Key(vault: ObjectIdentifier(vault), project: project)] = mark
        }
    }

    /// The settled mark kept for the privileged `project` of `vault`, if one is.
    func settled(_ project: ProjectID, of vault: UnlockedVault) -> SyncSettledMark? {
        state.withLock { state in state.settled[Key(vault: ObjectIdentifier(vault), project: project)] }.flatMap { $0.vault === vault ? $0 : nil }
    }

    /// Drops every replica (and settled mark) kept for `vault` (for a holder that locks it).
    public func drop(_ vault: UnlockedVault) {
        state.withLock { state in
            state.entries = state.entries.filter { $0.value.entry.vault != nil && $0.value.entry.vault !== vault }
            state.settled = state.settled.filter { $0.value.vault != nil && $0.value.vault !== vault }
        }
    }

    /// How many replicas are kept for `vault` (for tests).
    public func count(of vault: UnlockedVault) -> Int {
        state.withLock { state in state.entries.values.filter { $0.entry.vault === vault }.count }
    }
}
