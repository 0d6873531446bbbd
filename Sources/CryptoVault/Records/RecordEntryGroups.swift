/// The records a transaction seals and opens, gathered into `record.seal` and `record.open` entries
/// (SECURITY.md §4.8): one entry per action and compartment for the whole transaction, cut at 64
/// records or 4 KiB of names, instead of one per record or per call. An editor's snapshot (a block
/// or two resealed, its writing session's record read and resealed, the last version read and the
/// new one sealed) costs one `record.open` and one `record.seal`, not three of each; every record
/// is still named, in the order it was sealed or opened. The entry carries no count: the names are
/// one per line, so the count is theirs (a detail of its own cost some 40 bytes of log per entry).
///
/// Each group's entries stand in the log where the transaction first sealed (or opened) a record
/// of that compartment: the transaction keeps a placeholder there (`Key`) and expands it when its
/// entries are appended, so reads are still named before the writes that followed them.
struct RecordEntryGroups {
    struct Key: Hashable {
        let action: AuditAction
        let compartment: CompartmentID
    }

    private var records: [Key: [(location: SealedRecordLocation, bytes: Int)]] = [:]
    /// The key of the last record added: a batch of one compartment looks its group up once.
    private var last: Key?

    var isEmpty: Bool { records.isEmpty }

    /// Adds a record to its group; returns the group's key when the group is new (the caller then keeps its place).
    mutating func add(_ location: SealedRecordLocation, bytes: Int, as action: AuditAction, in compartment: CompartmentID) -> Key? {
        let key = last.flatMap { $0.action == action && $0.compartment == compartment ? $0 : nil } ?? Key(action: action, compartment: compartment)
        last = key
        if records[key] == nil {
            records[key] = [(location, bytes)]
            return key
        }
        records[key]!.append((location, bytes))
        return nil
    }

    /// The group's entries, in order (none if it was taken already); the group is emptied.
    mutating func take(_ key: Key) -> [VaultEvent] {
        guard let group = records.removeValue(forKey: key) else { return [] }
        if last == key { last = nil }
        return Self.cut(group).map { part in
            VaultEvent(key.action, compartmentID: key.compartment,
                       details: [.init("records", SealedRecordLocation.describe(part.lazy.map(\.location))),
                                 .init(UnlockedVault.bytesDetailName, String(part.reduce(0) { $0 + $1.bytes }))])
        }
    }

    /// The entries a group would make now, without taking it (the reads of a transaction that rolls back).
    func peek(_ key: Key) -> [VaultEvent] {
        var copy = self
        return copy.take(key)
    }

    mutating func removeAll() {
        records.removeAll()
        last = nil
    }

    /// Records cut into parts of at most 64 and 4 KiB of names (a detail's limit, §8.2), in order.
    private static func cut(_ records: [(location: SealedRecordLocation, bytes: Int)]) -> [ArraySlice<(location: SealedRecordLocation, bytes: Int)>] {
        var parts: [ArraySlice<(location: SealedRecordLocation, bytes: Int)>] = []
        var start = 0, names = -1
        for (index, record) in records.enumerated() {
            let size = record.location.descriptionSize
            if index > start, index - start == SealedRecords.recordsPerOpenEntry || names + 1 + size > SealedRecords.namesPerOpenEntry {
                parts.append(records[start..<index])
                (start, names) = (index, -1)
            }
            names += 1 + size
        }
        if start < records.count { parts.append(records[start...]) }
        return parts
    }
}
