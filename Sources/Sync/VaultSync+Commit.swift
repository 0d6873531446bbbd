import CryptoVault
import Writing

extension VaultSync {
    /// The operations of one record at most: as many as a record may hold, and no more bytes than
    /// fit one sync message with room to spare (SECURITY.md §19.2, §19.9).
    static let maximumOperationBytesPerRecord = 2 << 20

    /// Commits `operations` as one record, or as several in a row when they are more than one
    /// record may hold (a first commit of a whole book: 6,000 paragraphs), each stored and recorded
    /// (`sync.record-commit`). The order is kept, so a node's operation comes before its blocks'.
    /// Returns the last record.
    func commitInRecords(_ operations: [ChangeOperation], to replica: inout SyncReplica, of project: WritingProject) throws -> ChangeRecord? {
        var last: ChangeRecord?
        for chunk in Self.chunks(operations) {
            let record = try replica.commit(chunk)
            try storeRecord(record, of: project)
            try transaction.record(.syncRecordCommit, compartment: project.compartment.id, subject: project.id,
                                   details: [.init("hash", ByteEncoding.hex(record.hash)), .init("counter", String(record.counter)),
                                             .init("operations", String(record.operations.count))])
            last = record
        }
        return last
    }

    /// `operations` cut into runs of at most `ChangeRecordCodec.maximumOperations` operations and
    /// `maximumOperationBytesPerRecord` encoded bytes (a single larger operation stands alone).
    static func chunks(_ operations: [ChangeOperation]) -> [[ChangeOperation]] {
        var chunks: [[ChangeOperation]] = [], current: [ChangeOperation] = [], bytes = 0
        for operation in operations {
            var encoded: [UInt8] = []
            ChangeRecordCodec.encode(operation, to: &encoded)
            if !current.isEmpty, current.count == ChangeRecordCodec.maximumOperations || bytes + encoded.count > maximumOperationBytesPerRecord {
                chunks.append(current)
                (current, bytes) = ([], 0)
            }
            current.append(operation)
            bytes += encoded.count
        }
        if !current.isEmpty { chunks.append(current) }
        return chunks
    }
}
