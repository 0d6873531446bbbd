import CryptoVault
import Writing

/// One block's history in a replica: every value written to it, by which record, and the heads
/// (the values no later write of the block has seen). One head is the block's value; several are
/// concurrent writes, settled by `resolve` (SECURITY.md §19.3).
struct BlockRegister: Sendable {
    struct Write: Sendable {
        let entry: Int
        let value: BlockValue
    }

    let id: BlockID
    let document: NodeID
    private(set) var writes: [Write] = []
    private(set) var heads: [Int] = []
    /// Merged values of sets of writes, by the sorted write indices: a base once computed never changes.
    private var merges: [[Int]: BlockValue] = [:]

    init(id: BlockID, document: NodeID) {
        self.id = id
        self.document = document
    }

    /// Adds a write of entry `entry` (admitted after every write in its past, so it supersedes
    /// exactly the heads in its past).
    mutating func add(_ value: BlockValue, entry: Int, history: CausalHistory) {
        heads.removeAll { history.precedes(writes[$0].entry, entry) }
        heads.append(writes.count)
        writes.append(Write(entry: entry, value: value))
    }

    /// The block's value, and the conflicts its heads hold (none when they merge cleanly).
    mutating func resolve(history: CausalHistory) -> (value: BlockValue, conflicts: [SyncConflict]) {
        var conflicts: [SyncConflict] = []
        let value = merged(heads, history: history, conflicts: &conflicts)
        return (value, conflicts)
    }

    /// Folds the writes `set` in rank order: each next one is merged with what came before against
    /// their common past; a conflict keeps the next (higher-ranked) write and reports the rest.
    private mutating func merged(_ set: [Int], history: CausalHistory, conflicts: inout [SyncConflict]) -> BlockValue {
        if set.count == 1 { return writes[set[0]].value }
        let ordered = set.sorted { history.ranksBelow(writes[$0].entry, writes[$1].entry) }
        var value = writes[ordered[0]].value
        var folded = [ordered[0]]
        for next in ordered.dropFirst() {
            let base = commonBase(of: folded, and: next, history: history)
            if let merged = ConflictDetector.merge(base: base, value, writes[next].value) {
                value = merged
                folded.append(next)
                continue
            }
            conflicts.append(conflict(losing: folded, value: value, winning: writes[next].value, history: history))
            value = writes[next].value
            folded = [next]
        }
        return value
    }

    /// The value of the latest writes in the past of both `next` and one of `folded`, or nil if none.
    private mutating func commonBase(of folded: [Int], and next: Int, history: CausalHistory) -> BlockValue? {
        let common = writes.indices.filter { index in
            index != next && history.precedes(writes[index].entry, writes[next].entry)
                && folded.contains { history.precedes(writes[index].entry, writes[$0].entry) }
        }
        // A device's writes form a chain, so only its latest common one can be maximal.
        var perDevice: [Int: Int] = [:]
        for index in common {
            let device = history.entries[writes[index].entry].device
            if let held = perDevice[device], history.precedes(writes[index].entry, writes[held].entry) { continue }
            perDevice[device] = index
        }
        let candidates = Array(perDevice.values)
        let latest = candidates.filter { a in !candidates.contains { b in b != a && history.precedes(writes[a].entry, writes[b].entry) } }
        guard !latest.isEmpty else { return nil }
        let key = latest.sorted()
        if let known = merges[key] { return known }
        var ignored: [SyncConflict] = []
        let value = merged(key, history: history, conflicts: &ignored)
        merges[key] = value
        return value
    }

    private func conflict(losing: [Int], value: BlockValue, winning: BlockValue, history: CausalHistory) -> SyncConflict {
        // Named by the block and the losing writes' records: the same on every device.
        var input = Array("SealedVault sync conflict v1".utf8) + [0] + id.bytes
        for hash in losing.map({ history.entries[writes[$0].entry].record.hash }).sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            input += hash
        }
        let branch = try! BranchID(bytes: Array(SHA256.hash(input).prefix(16)))
        return SyncConflict(branch: branch, document: document, block: id, losing: value, winning: winning)
    }
}
