import CryptoVault
import Writing

extension VaultSync {
    /// The operations of one record at most: as many as a record may hold, and no more bytes than
    /// fit one sync message with room to spare (SECURITY.md §19.2, §19.9).
    static let maximumOperationBytesPerRecord = 2 << 20

    /// Commits `operations` as one record, or as several in a row when they are more than one
    /// record may hold (a first commit of a whole book: 6,000 paragraphs; a merge that met
    /// thousands of conflicts), each stored and recorded (`sync.record-commit`). The conflicts no
    /// record made durable yet come first (after a project name that leads), cut like any operation (each 0x03 carries both sides'
    /// text, so a few long blocks in conflict fill a record), so they are durable before a write
    /// that resolves one; then the operations in their order, so a node's comes before its blocks'.
    /// With more heads than a record names, records joining the rest follow (`SyncReplica.joinHeads`).
    /// Returns the records, in order.
    func commitInRecords(_ operations: [ChangeOperation], to replica: inout SyncReplica, of project: WritingProject) throws -> [ChangeRecord] {
        var records: [ChangeRecord] = []
        // A leading project name stays first (VaultSync.commitLocalChanges puts it there, §19.3).
        let name = operations.prefix { if case .project(.name) = $0 { true } else { false } }
        let all = Array(name) + replica.undurableConflicts() + operations.dropFirst(name.count)
        let work = all.map { replica.textWork(of: $0) }
        var made: [ChangeRecord] = []
        for chunk in try Self.chunks(all, work: work) { made.append(try replica.commit(chunk, carryingConflicts: false)) }
        made += try replica.joinHeads()
        for record in made {
            try storeRecord(record, of: project)
            try transaction.record(.syncRecordCommit, compartment: project.compartment.id, subject: project.id,
                                   details: [.init("hash", ByteEncoding.hex(record.hash)), .init("counter", String(record.counter)),
                                             .init("operations", String(record.operations.count))])
            records.append(record)
        }
        return records
    }

    /// `operations` cut into runs of at most `ChangeRecordCodec.maximumOperations` operations,
    /// `maximumOperationBytesPerRecord` encoded bytes and `TextSequence.maximumWork` of text work
    /// (`work`, one figure per operation; none when not given) — a single larger operation stands
    /// alone. A block's value and the text edits after it stay in one record (SECURITY.md §19.2).
    static func chunks(_ operations: [ChangeOperation], work: [Int]? = nil) throws(SyncError) -> [[ChangeOperation]] {
        var chunks: [[ChangeOperation]] = [], current: [ChangeOperation] = [], bytes = 0, cost = 0, index = 0
        for unit in units(operations) {
            var encoded: [UInt8] = []
            for operation in unit { try ChangeRecordCodec.encode(operation, to: &encoded) }
            let unitCost = work.map { $0[index..<index + unit.count].reduce(0, +) } ?? 0
            index += unit.count
            if !current.isEmpty, current.count + unit.count > ChangeRecordCodec.maximumOperations
                || bytes + encoded.count > maximumOperationBytesPerRecord || cost + unitCost > TextSequence.maximumWork {
                chunks.append(current)
                (current, bytes, cost) = ([], 0, 0)
            }
            current += unit
            bytes += encoded.count
            cost += unitCost
        }
        if !current.isEmpty { chunks.append(current) }
        return chunks
    }

    /// The operations in groups that must share a record: a block's value with its text edits.
    static func units(_ operations: [ChangeOperation]) -> [[ChangeOperation]] {
        var units: [[ChangeOperation]] = []
        for operation in operations {
            if case .text(_, let block, _) = operation, case .block(_, let written, _)? = units.last?.last, written == block {
                units[units.count - 1].append(operation)
            } else {
                units.append([operation])
            }
        }
        return units
    }
}
