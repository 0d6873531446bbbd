import CryptoVault
import Synchronization

/// A journal that keeps the events it is given, to check what a vault operation records.
public final class RecordingJournal: VaultJournal {
    public let events = Mutex<[VaultEvent]>([])
    /// The actions of each append call, in order: a transaction hands over its entries in one call,
    /// so actions in one batch were recorded in one transaction.
    public let batches = Mutex<[[String]]>([])

    public init() {}

    package func append(_ event: VaultEvent, in database: Database, vaultID: VaultID, keys: AuditKeys?) throws {
        events.withLock { $0.append(event) }
        batches.withLock { $0.append([event.action.name]) }
    }

    package func append(_ appended: [VaultEvent], in database: Database, vaultID: VaultID, keys: AuditKeys?) throws {
        events.withLock { $0.append(contentsOf: appended) }
        batches.withLock { $0.append(appended.map(\.action.name)) }
    }

    package func commandFinished(in database: Database, vaultID: VaultID) throws {}

    /// The actions recorded, in order, as the strings the log stores.
    public var actions: [String] { events.withLock { $0.map(\.action.name) } }
}
