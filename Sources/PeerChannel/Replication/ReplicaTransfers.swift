import CryptoVault
import Foundation
import Synchronization

/// The transfers in progress on the keeper, carried from one chunk to the next: how many bytes were
/// written (possibly more than the row counts, which moves only at each fsync) and their running
/// SHA-256, so that a bundle is hashed once, as it arrives. A state that is missing (a restart, an
/// eviction) is rebuilt from the partial file's first `received` bytes, the ones known to be durable.
final class ReplicaTransfers: Sendable {
    /// Bounds the memory a peer can make this side hold: beyond it the oldest state goes, at the cost
    /// of rehashing its partial file if that transfer ever continues.
    static let maximumInProgress = 64

    private struct Key: Hashable {
        let source: DeviceID
        let bundleID: BundleID
    }

    /// The states, and their keys oldest first (for eviction).
    private struct Table {
        var states: [Key: InProgressTransfer] = [:]
        var order: [Key] = []
    }

    private let table = Mutex(Table())

    /// Takes the state of `record`'s transfer out of the table (so that no other request can use it
    /// meanwhile), rebuilt from `partialPath` if it is missing or behind the row.
    func take(for record: ReplicaRecord, partialPath: String) throws -> InProgressTransfer {
        let key = Key(source: record.sourceDeviceID, bundleID: record.bundleID)
        let state = table.withLock { table in
            table.order.removeAll { $0 == key }
            return table.states.removeValue(forKey: key)
        }
        if let state, state.written >= record.received, state.written <= record.length { return state }
        return try InProgressTransfer(hashingFirst: record.received, of: partialPath)
    }

    /// Puts back the state of a transfer that continues.
    func putBack(_ state: InProgressTransfer, for record: ReplicaRecord) {
        let key = Key(source: record.sourceDeviceID, bundleID: record.bundleID)
        table.withLock { table in
            table.states[key] = state
            table.order.append(key)
            while table.order.count > Self.maximumInProgress {
                table.states[table.order.removeFirst()] = nil
            }
        }
    }

    /// Forgets the state of a transfer that started afresh or was discarded.
    func forget(_ record: ReplicaRecord) {
        let key = Key(source: record.sourceDeviceID, bundleID: record.bundleID)
        table.withLock { table in
            table.states[key] = nil
            table.order.removeAll { $0 == key }
        }
    }
}

/// One transfer: the running SHA-256 of its first `written` bytes. Owned by one request at a time
/// (taken out of `ReplicaTransfers`, put back after), hence unchecked Sendable.
final class InProgressTransfer: @unchecked Sendable {
    private var hasher: SHA256.Hasher? = SHA256.Hasher()
    private(set) var written: UInt64 = 0

    init() {}

    /// The state after the first `count` bytes of the file at `path`.
    convenience init(hashingFirst count: UInt64, of path: String) throws {
        self.init()
        guard count > 0 else { return }
        let file = try FileDescriptor.openForReading(path)
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while written < count {
            let wanted = Int(min(UInt64(buffer.count), count - written))
            let read = try buffer.withUnsafeMutableBytes { try file.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<wanted]), at: written) }
            guard read == wanted else {
                throw CryptoVaultError(.io, "\(path) is shorter than the \(count) bytes counted as received")
            }
            buffer.withUnsafeBytes { update(UnsafeRawBufferPointer(rebasing: $0[0..<wanted])) }
        }
    }

    func update(_ bytes: UnsafeRawBufferPointer) {
        hasher?.update(bytes)
        written += UInt64(bytes.count)
    }

    /// The digest of every byte seen; the state cannot be used again.
    func finalize() -> [UInt8] {
        hasher.take()?.finalize() ?? []
    }
}
