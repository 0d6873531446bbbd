import CryptoVault
import PrivilegedSession
import Synchronization

/// The search index of each project, kept in this process between searches (SECURITY.md §15.4), so
/// a search does not open and index every block of the project again: it is built on the first
/// search, and kept only while it is known to be the project's content or to lack only what the
/// store's changes since it was read name.
///
/// It is never written anywhere: it lives in this process's memory, its plaintext in locked memory
/// (`SearchIndex`). Each kept index has the project's change mark (`WritingChangeMarks`) taken
/// before it was read: the next search re-indexes the documents written since (and reads the
/// binder's order again), keeping every other document's part as it was. It is dropped, and so
/// wiped:
/// - on a write of the store that may change any document's text (a project-wide restore: a
///   change whose subject is the project, other than those that leave the documents as they were),
///   and an index built in a transaction that wrote to the project is not kept (it could roll back);
/// - when another connection (another process, say) has committed anything to the vault since it was
///   read: SQLite's `data_version` of the connection moved (the store's notes cannot know what it
///   wrote), and when the notes of the project's changes began after its mark;
/// - when the unlocked vault it was built in is released (locked), or, for a privileged project,
///   when the session it was built in has ended: at the next use of the cache, or at once by
///   `UnlockedVault.dropSearchIndexes()`.
/// A privileged project's index is used, and updated, only in the very session that built it,
/// while that session holds its keys.
final class SearchIndexCache: Sendable {
    static let shared = SearchIndexCache()

    /// What an index was built in: the vault, its connection and the connection's data version, and
    /// for a privileged project the session that read it. The references are weak: the cache never
    /// keeps a vault, a connection or a session alive.
    struct Stamp: Sendable {
        weak var vault: UnlockedVault?
        weak var database: Database?
        weak var session: PrivilegedProcessingSession?
        let privileged: Bool
        let dataVersion: Int64

        init(_ transaction: VaultTransaction, session: PrivilegedProcessingSession?) throws {
            vault = transaction.vault
            database = transaction.database
            self.session = session
            privileged = session != nil
            dataVersion = try transaction.database.queryOne("PRAGMA data_version")?.integer("data_version") ?? -1
        }

        /// Whether what it names is gone: the vault released, or the session ended.
        var isGone: Bool {
            vault == nil || database == nil || (privileged && session?.isHoldingKeys != true)
        }

        func matches(_ other: Stamp) -> Bool {
            !isGone && vault === other.vault && database === other.database && session === other.session
                && dataVersion == other.dataVersion
        }
    }

    /// A kept index and the project's change mark taken before it was read: the changes noted since
    /// are what it lacks.
    struct Entry: Sendable {
        let stamp: Stamp
        let index: SearchIndex
        let mark: WritingChangeMarks.Mark
    }

    /// A transaction that wrote to a project, weakly: once it has ended it no longer counts. Only
    /// its identity is ever used (compared with `===`), never the transaction, so it may cross the lock.
    private struct Writer: @unchecked Sendable {
        weak var transaction: VaultTransaction?
    }

    private struct State: Sendable {
        var indexes: [ProjectID: Entry] = [:]
        var writers: [ProjectID: Writer] = [:]

        mutating func dropGone() {
            indexes = indexes.filter { !$0.value.stamp.isGone }
            writers = writers.filter { $0.value.transaction != nil }
        }
    }

    private let state = Mutex(State())

    /// The index of `project` built under `stamp`'s vault, connection, data version and session, with its mark, if one is kept.
    func entry(of project: ProjectID, _ stamp: Stamp) -> Entry? {
        state.withLock { state in
            state.dropGone()
            guard let entry = state.indexes[project], entry.stamp.matches(stamp) else { return nil }
            return entry
        }
    }

    /// Keeps `index`, read after `mark`, unless `transaction` wrote to the project before building it.
    func keep(_ index: SearchIndex, mark: WritingChangeMarks.Mark, of project: ProjectID, _ stamp: Stamp, builtIn transaction: VaultTransaction) {
        let builder = Writer(transaction: transaction)
        let entry = Entry(stamp: stamp, index: index, mark: mark)
        state.withLock { state in
            state.dropGone()
            guard state.writers[project]?.transaction !== builder.transaction else { return }
            state.indexes[project] = entry
        }
    }

    /// `transaction` changes `project`: no index built in this transaction is kept, and the kept one
    /// is dropped when the change may touch `anyDocument`'s text (a document's own change is folded
    /// in at the next search, from the change marks).
    func written(_ project: ProjectID, in transaction: VaultTransaction, anyDocument: Bool) {
        let writer = Writer(transaction: transaction)
        state.withLock { state in
            if anyDocument { state.indexes[project] = nil }
            state.writers[project] = writer
            state.dropGone()
        }
    }

    /// Drops every index built in `vault` (its sessions' too).
    func drop(_ vault: UnlockedVault) {
        state.withLock { state in
            state.indexes = state.indexes.filter { $0.value.stamp.vault !== vault }
            state.dropGone()
        }
    }

    /// Whether an index of `project` is kept (for tests), after dropping those whose vault or session is gone.
    func holds(_ project: ProjectID) -> Bool {
        state.withLock { state in
            state.dropGone()
            return state.indexes[project] != nil
        }
    }
}

extension UnlockedVault {
    /// Drops the search indexes this process keeps for this vault's projects (`SearchIndexCache`),
    /// wiping their plaintext now rather than at the cache's next use: for a holder that locks.
    public func dropSearchIndexes() {
        SearchIndexCache.shared.drop(self)
    }
}
