import CryptoVault
import Writing

/// What operations 0x09 and 0x0A (`ProjectOperation`) make of a project (SECURITY.md §19.3): each
/// entry, the project's name and its archived flag a last-writer-wins register, whose value is its
/// head of highest rank, as a binder node's. A function of the set of records, like the rest.
struct ProjectRegisters: Sendable {
    private(set) var entries: [EntryID: LastWriterRegister<EntryValue>] = [:]
    private var name = LastWriterRegister<String>()
    private var archived = LastWriterRegister<Int64?>()
    /// Project snapshots: each the write of least rank that names its id (as a document snapshot, §19.3).
    private(set) var projectSnapshots: [ProjectSnapshotID: (entry: Int, snapshot: SyncedProjectSnapshot)] = [:]

    /// A record writes one entry, and each field of the project, at most once.
    static func check(_ record: ChangeRecord) throws(SyncError) {
        var entries = Set<EntryID>(), named = false, archived = false, snapshots = Set<ProjectSnapshotID>()
        for case .project(let operation) in record.operations {
            switch operation {
            case .entry(let id, _):
                guard entries.insert(id).inserted else { throw SyncByteReader.malformed("entry \(id) written twice in one record") }
            case .name:
                guard !named else { throw SyncByteReader.malformed("the project's name written twice in one record") }
                named = true
            case .archived:
                guard !archived else { throw SyncByteReader.malformed("the project's archived flag written twice in one record") }
                archived = true
            case .projectSnapshot(let snapshot):
                guard snapshots.insert(snapshot.id).inserted else { throw SyncByteReader.malformed("project snapshot \(snapshot.id) written twice in one record") }
            }
        }
    }

    mutating func apply(_ operation: ProjectOperation, entry: Int, history: CausalHistory) {
        switch operation {
        case .entry(let id, let value): entries[id, default: LastWriterRegister()].add(value, entry: entry, history: history)
        case .name(let value): name.add(value, entry: entry, history: history)
        case .archived(let time): archived.add(time, entry: entry, history: history)
        case .projectSnapshot(let snapshot):
            if let held = projectSnapshots[snapshot.id], history.ranksBelow(held.entry, entry) { return }
            projectSnapshots[snapshot.id] = (entry, snapshot)
        }
    }

    /// Each entry's value, removed ones included, by id.
    func entryValues(history: CausalHistory) -> [EntryID: EntryValue] {
        entries.compactMapValues { $0.value(history: history) }
    }

    /// The project's name as the records last set it; nil when no record has.
    func name(history: CausalHistory) -> String? { name.value(history: history) }

    /// The archived flag as the records last set it: nil when no record has, `.some(nil)` when brought back.
    func archivedAt(history: CausalHistory) -> Int64?? { archived.value(history: history) }

    /// The device whose record wrote the winning value of entry `id` (for the audit's `from`).
    func writer(ofEntry id: EntryID, history: CausalHistory) -> DeviceID? {
        entries[id]?.winner(history: history).map { history.entries[$0.entry].record.device }
    }

    /// The heads of the name's, the archived flag's and entry `id`'s registers (`OwnersProject`).
    var nameHeads: [(entry: Int, value: String)] { name.headWrites }
    var archivedHeads: [(entry: Int, value: Int64?)] { archived.headWrites }
    func entryHeads(_ id: EntryID) -> [(entry: Int, value: EntryValue)] { entries[id]?.headWrites ?? [] }

    func writer(ofName history: CausalHistory) -> DeviceID? { name.winner(history: history).map { history.entries[$0.entry].record.device } }
    func writer(ofArchived history: CausalHistory) -> DeviceID? { archived.winner(history: history).map { history.entries[$0.entry].record.device } }
}

/// A register whose value is the write of highest rank (Lamport time, device, hash) among its
/// heads, the writes no later write of it has in its past.
struct LastWriterRegister<Value: Sendable>: Sendable {
    private var writes: [(entry: Int, value: Value)] = []
    private var heads: [Int] = []

    mutating func add(_ value: Value, entry: Int, history: CausalHistory) {
        heads.removeAll { history.precedes(writes[$0].entry, entry) }
        heads.append(writes.count)
        writes.append((entry, value))
    }

    func winner(history: CausalHistory) -> (entry: Int, value: Value)? {
        heads.max { history.ranksBelow(writes[$0].entry, writes[$1].entry) }.map { writes[$0] }
    }

    func value(history: CausalHistory) -> Value? { winner(history: history)?.value }

    /// The heads (writes no later write has in its past): history entry and value.
    var headWrites: [(entry: Int, value: Value)] { heads.map { writes[$0] } }
}
