import CryptoVault
import Synchronization

/// A journal that keeps the events it is given, to check what a vault operation records.
public final class RecordingJournal: VaultJournal {
    public let events = Mutex<[VaultEvent]>([])

    public init() {}

    public func append(_ event: VaultEvent, in database: Database, vaultID: [UInt8], keys: AuditKeys?) throws {
        events.withLock { $0.append(event) }
    }

    public func commandFinished(in database: Database, vaultID: [UInt8]) throws {}

    /// The actions recorded, in order, as the strings the log stores.
    public var actions: [String] { events.withLock { $0.map(\.action.name) } }
}
