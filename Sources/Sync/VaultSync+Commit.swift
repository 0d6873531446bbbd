import CryptoVault
import Writing

extension VaultSync {
    /// The operations of one record at most: as many as a record may hold, and no more bytes than
    /// fit one sync message with room to spare (SECURITY.md §19.2, §19.9).
    static let maximumOperationBytesPerRecord = 2 << 20

    /// Commits `operations` as one record, or as several in a row when they are more than one
    /// record may hold (a first commit of a whole book: 6,000 paragraphs), each stored and recorded
    /// (`sync.record-commit`). The order is kept, so a node's operation comes before its blocks'.
    /// Returns the records, in order.
    func commitInRecords(_ operations: [ChangeOperation], to replica: inout SyncReplica, of project: WritingProject) throws -> [ChangeRecord] {
        var records: [ChangeRecord] = []
        for chunk in Self.chunks(operations) {
            let record = try replica.commit(chunk)
            try storeRecord(record, of: project)
            try transaction.record(.syncRecordCommit, compartment: project.compartment.id, subject: project.id,
                                   details: [.init("hash", ByteEncoding.hex(record.hash)), .init("counter", String(record.counter)),
                                             .init("operations", String(record.operations.count))])
            records.append(record)
        }
        return records
    }

    /// `operations` cut into runs of at most `ChangeRecordCodec.maximumOperations` operations and
    /// `maximumOperationBytesPerRecord` encoded bytes (a single larger operation stands alone). A
    /// block's value and the text edits after it stay in one record (SECURITY.md §19.2).
    static func chunks(_ operations: [ChangeOperation]) -> [[ChangeOperation]] {
        var chunks: [[ChangeOperation]] = [], current: [ChangeOperation] = [], bytes = 0
        for unit in units(operations) {
            var encoded: [UInt8] = []
            for operation in unit { ChangeRecordCodec.encode(operation, to: &encoded) }
            if !current.isEmpty, current.count + unit.count > ChangeRecordCodec.maximumOperations
                || bytes + encoded.count > maximumOperationBytesPerRecord {
                chunks.append(current)
                (current, bytes) = ([], 0)
            }
            current += unit
            bytes += encoded.count
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
