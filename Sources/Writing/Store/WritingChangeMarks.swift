import CryptoVault
import Synchronization

/// Which documents and folders of a project this process changed through the store since a point
/// (a *mark*), so that a reader holding what they were at the mark (sync's replica, SECURITY.md
/// §19.5) opens only those again instead of every block of the project.
///
/// Every change the store makes is recorded through `WritingStore.record`, which notes its subject
/// here (`written`), in memory only: ids, never content. A mark is kept by the connection it was
/// taken on and answers only while it is sure to know everything written since:
/// - the same connection, still open (the references are weak: nothing here keeps it alive);
/// - SQLite's `data_version` of that connection unmoved: no other connection (another process, say)
///   has committed anything to the vault since;
/// - nothing noted since was forgotten (past `maximumSubjects` the notes start again).
/// Otherwise `written(since:)` says nil: anything may have changed, read everything. A change noted
/// in a transaction that then rolled back stays noted: the answer may hold more than changed, never less.
/// A mark taken in a transaction that rolls back must not be used (its holder keeps it only once its
/// transaction committed).
public final class WritingChangeMarks: Sendable {
    public static let shared = WritingChangeMarks()
    /// Subjects noted per connection and project before the notes start again.
    static let maximumSubjects = 100_000

    /// A point in one project's changes on one connection.
    public struct Mark: Sendable {
        weak var database: Database?
        let project: ProjectID
        let generation: UInt64
        let dataVersion: Int64
    }

    private struct Key: Hashable {
        let database: ObjectIdentifier
        let project: ProjectID
    }

    private struct Notes: Sendable {
        weak var database: Database?
        /// Marks taken before this generation cannot be answered (the notes began after them).
        var floor: UInt64
        /// Each subject's latest change, by generation.
        var subjects: [[UInt8]: UInt64] = [:]
    }

    private struct State: Sendable {
        var generation: UInt64 = 0
        var byKey: [Key: Notes] = [:]

        /// The notes of `project` on `database`, begun now when there are none (or the connection
        /// they were for is gone).
        mutating func notes(_ project: ProjectID, on database: Database) -> Notes {
            let key = Key(database: ObjectIdentifier(database), project: project)
            if let kept = byKey[key], kept.database === database { return kept }
            byKey = byKey.filter { $0.value.database != nil }
            let fresh = Notes(database: database, floor: generation)
            byKey[key] = fresh
            return fresh
        }
    }

    private let state = Mutex(State())

    /// `subject` of `project` was changed in `transaction` (from `WritingStore.record`).
    func written(_ project: ProjectID, subject: [UInt8], in transaction: VaultTransaction) {
        let database = transaction.database
        state.withLock { state in
            state.generation += 1
            var notes = state.notes(project, on: database)
            if notes.subjects.count >= Self.maximumSubjects { notes = Notes(database: database, floor: state.generation) }
            notes.subjects[subject] = state.generation
            state.byKey[Key(database: ObjectIdentifier(database), project: project)] = notes
        }
    }

    /// The point `project` has reached on `transaction`'s connection.
    public func mark(_ project: ProjectID, in transaction: VaultTransaction) throws -> Mark {
        let dataVersion = try Self.dataVersion(transaction.database)
        return state.withLock { state in
            _ = state.notes(project, on: transaction.database)
            return Mark(database: transaction.database, project: project, generation: state.generation, dataVersion: dataVersion)
        }
    }

    /// The subjects (document and folder ids, among others) of `mark`'s project changed since it,
    /// or nil when that cannot be known (another connection, a commit by another connection, notes
    /// begun after the mark).
    public func written(since mark: Mark, in transaction: VaultTransaction) throws -> Set<[UInt8]>? {
        let database = transaction.database
        guard mark.database === database, try Self.dataVersion(database) == mark.dataVersion else { return nil }
        return state.withLock { state in
            guard let notes = state.byKey[Key(database: ObjectIdentifier(database), project: mark.project)],
                  notes.database === database, notes.floor <= mark.generation else { return nil }
            return Set(notes.subjects.filter { $0.value > mark.generation }.keys)
        }
    }

    static func dataVersion(_ database: Database) throws -> Int64 {
        try database.queryOne("PRAGMA data_version")?.integer("data_version") ?? -1
    }
}
