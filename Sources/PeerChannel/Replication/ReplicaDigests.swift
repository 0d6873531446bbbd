import CryptoVault
import Foundation
import Synchronization

/// The SHA-256 of each transfer in progress, carried from one chunk to the next so that a bundle is
/// hashed once, as it arrives. A state that is missing (a restart, an eviction) or not at the offset
/// of the next chunk is rebuilt from the partial file, which holds exactly the bytes counted so far.
final class ReplicaDigests: Sendable {
    /// Bounds the memory a peer can make this side hold: beyond it the oldest state goes, at the cost
    /// of rehashing its partial file if that transfer ever continues.
    static let maximumInProgress = 64

    private struct Key: Hashable {
        let source: [UInt8]
        let bundleID: [UInt8]
    }

    /// The states, and their keys oldest first (for eviction).
    private struct Table {
        var states: [Key: InProgressDigest] = [:]
        var order: [Key] = []
    }

    private let table = Mutex(Table())

    /// Takes the state of `record`'s transfer out of the table (so that no other request can use it
    /// meanwhile), rebuilt from `partialPath` if it is not at `record.received`.
    func take(for record: ReplicaRecord, partialPath: String) throws -> InProgressDigest {
        let key = Key(source: record.sourceDeviceID, bundleID: record.bundleID)
        let state = table.withLock { table in
            table.order.removeAll { $0 == key }
            return table.states.removeValue(forKey: key)
        }
        if let state, state.offset == record.received { return state }
        return try InProgressDigest(hashingFirst: record.received, of: partialPath)
    }

    /// Puts back the state of a transfer that continues.
    func putBack(_ state: InProgressDigest, for record: ReplicaRecord) {
        let key = Key(source: record.sourceDeviceID, bundleID: record.bundleID)
        table.withLock { table in
            table.states[key] = state
            table.order.append(key)
            while table.order.count > Self.maximumInProgress {
                table.states[table.order.removeFirst()] = nil
            }
        }
    }
}

/// The running SHA-256 of the first `offset` bytes of one bundle. Owned by one request at a time
/// (taken out of `ReplicaDigests`, put back after), hence unchecked Sendable.
final class InProgressDigest: @unchecked Sendable {
    private var hasher: SHA256.Hasher? = SHA256.Hasher()
    private(set) var offset: UInt64 = 0

    init() {}

    /// The state after the first `count` bytes of the file at `path`.
    convenience init(hashingFirst count: UInt64, of path: String) throws {
        self.init()
        guard count > 0 else { return }
        let file = try FileDescriptor.openForReading(path)
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while offset < count {
            let wanted = Int(min(UInt64(buffer.count), count - offset))
            let read = try buffer.withUnsafeMutableBytes { try file.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<wanted]), at: offset) }
            guard read == wanted else {
                throw CryptoVaultError(.io, "\(path) is shorter than the \(count) bytes counted as received")
            }
            buffer.withUnsafeBytes { update(UnsafeRawBufferPointer(rebasing: $0[0..<wanted])) }
        }
    }

    func update(_ bytes: UnsafeRawBufferPointer) {
        hasher?.update(bytes)
        offset += UInt64(bytes.count)
    }

    /// The digest of every byte seen; the state cannot be used again.
    func finalize() -> [UInt8] {
        hasher.take()?.finalize() ?? []
    }
}
