/// The one way to change the vault: a write transaction that carries its own audit entries.
///
/// `unlocked.transaction { tx in … }` runs the body inside one SQLite write transaction
/// (`BEGIN IMMEDIATE`). The body reads and writes through `tx.database` and records what it did
/// with `tx.record(…)`; each entry is appended to the journal inside the same transaction, so the
/// changes and their entries commit together or not at all: if the body throws, both roll back,
/// and there is never a change without its entry nor an entry for a change that did not happen
/// (SECURITY.md §8, "An operation and its entry").
///
/// Entries are checked when recorded and held until the body returns, then handed to the journal in
/// one batch append just before the commit (the audit log then updates its Merkle tree and its
/// checkpoints once per transaction, not once per entry); they are the same entries, in the same
/// order, as appending each at once would make, except that the records sealed and opened are named
/// in one `record.seal` and one `record.open` entry per compartment for the whole transaction
/// (`RecordEntryGroups`, more past 64 records), each where the first of its records was. The
/// commit that makes the changes durable makes them durable (one fsync).
///
/// A transaction is usable only while its body runs: recording through one kept past the body
/// throws `.transactionClosed`, because its entry could no longer commit with anything.
/// Other modules extend this type with their own operations (sealed records, their own tables), so
/// every change they make is inside a transaction too.
public final class VaultTransaction {
    /// The vault this transaction changes; its master key derives the keys that seal entries' details.
    public let vault: UnlockedVault
    /// The connection, inside the open write transaction. Read and write your own module's tables here
    /// (OwnedSQLGuardTests). Package-internal: a caller outside the package changes the vault through
    /// a module's typed store made on the transaction, never with SQL of its own (PublicDatabaseGuardTests).
    package let database: Database
    private let auditKeys: AuditKeys
    private var isOpen = true
    /// What was recorded and not yet appended, in order: entries, and the places of the
    /// transaction's `record.seal` and `record.open` groups (`RecordEntryGroups`), expanded into
    /// their entries when the batch is appended.
    private var waiting: [Held] = []
    private var groups = RecordEntryGroups()
    /// The `record.open` entries appended already in this transaction (a direct journal append
    /// makes the batch go early). What was opened was handed to the body and cannot be taken back
    /// by a rollback, so if the transaction does not commit, its reads (these and the groups still
    /// waiting, `releasedReads`) are recorded again on their own after it (`UnlockedVault.transaction`).
    private var appendedReads: [VaultEvent] = []
    /// The compartments loaded in this transaction (`compartment(withID:)`), by id.
    var loadedCompartments: [CompartmentID: VaultCompartment] = [:]
    /// The actions and compartments of the entries appended so far, for the vault's commit
    /// observers once the transaction commits (`CommitObservers`).
    private(set) var appendedActions: [AuditAction] = []
    private(set) var appendedCompartments = Set<CompartmentID>()
    /// Refusals recorded in this transaction (`recordRefusal`): a refused change throws, so the
    /// transaction rolls back, yet the refusal happened and is recorded again on its own after it.
    private var refusals: [VaultEvent] = []
    /// Sealed records of this transaction (VaultTransaction+SealedRecords.swift): made at first use,
    /// it keeps the record keys it derives and its prepared statements until the transaction ends.
    lazy var sealedRecords = SealedRecords(vault: vault, database: database, journal: { [unowned self] in try self.record($0) },
                                           journalRecord: { [unowned self] in try self.recordNamed($0, bytes: $1, as: $2, in: $3) })

    private enum Held {
        case event(VaultEvent)
        case group(RecordEntryGroups.Key)
    }

    init(vault: UnlockedVault, database: Database) throws {
        self.vault = vault
        self.database = database
        self.auditKeys = try vault.auditKeys()
    }

    /// Records `action` in the journal, in this transaction: it commits with this transaction's
    /// changes or not at all. `details` are sealed and keyed-hashed by the journal, never stored in clear.
    public func record(_ action: AuditAction, compartment: CompartmentID? = nil, subject: [UInt8]? = nil,
                       details: [VaultEvent.Detail] = []) throws {
        try record(VaultEvent(action, compartmentID: compartment, subjectID: subject, details: details))
    }

    /// Records `action` about one of the vault's typed ids, whose bytes are the entry's subject id.
    public func record<Kind>(_ action: AuditAction, compartment: CompartmentID? = nil, subject: TypedIdentifier<Kind>,
                             details: [VaultEvent.Detail] = []) throws {
        try record(VaultEvent(action, compartmentID: compartment, subject: subject, details: details))
    }

    /// Records an event already assembled (an egress decision's details, say), in this transaction.
    public func record(_ event: VaultEvent) throws {
        guard isOpen else {
            throw CryptoVaultError(.transactionClosed, "an audit entry was recorded through a transaction that has ended; record inside the transaction's body")
        }
        try vault.vault.journal.check(event, keys: auditKeys)
        hold(.event(event))
    }

    /// Records a refusal (a change this transaction's body refuses, then throws for): in this
    /// transaction if it commits, and otherwise on its own once it has rolled back
    /// (`UnlockedVault.transaction`), so a refused change is in the log though nothing changed.
    /// Only a `RefusalAction` (an explicit list): any other entry made this way would stand for a
    /// change that did not happen.
    public func recordRefusal(_ refusal: RefusalAction, compartment: CompartmentID? = nil, subject: [UInt8]? = nil,
                              details: [VaultEvent.Detail] = []) throws {
        let event = VaultEvent(refusal.action, compartmentID: compartment, subjectID: subject, details: details)
        try record(event)
        refusals.append(event)
    }

    /// Records that `location` (`bytes` of plaintext) of `compartment` was sealed or opened
    /// (`action`: `.recordSeal` or `.recordOpen`), in this transaction's group of such records:
    /// named in the group's entries when the batch is appended.
    func recordNamed(_ location: SealedRecordLocation, bytes: Int, as action: AuditAction, in compartment: CompartmentID) throws {
        guard isOpen else {
            throw CryptoVaultError(.transactionClosed, "a record was sealed or opened through a transaction that has ended; do it inside the transaction's body")
        }
        if let key = groups.add(location, bytes: bytes, as: action, in: compartment) { hold(.group(key)) }
    }

    private func hold(_ held: Held) {
        if waiting.isEmpty { database.appendWaitingEntries = { [unowned self] in try self.appendWaitingEntries() } }
        waiting.append(held)
    }

    /// The reads this transaction recorded, appended or waiting, in order.
    var releasedReads: [VaultEvent] {
        appendedReads + waiting.flatMap { held -> [VaultEvent] in
            switch held {
            case .event(let event): event.action == .recordOpen ? [event] : []
            case .group(let key): key.action == .recordOpen ? groups.peek(key) : []
            }
        }
    }

    /// What stands if this transaction rolls back: its reads, then its refusals.
    var eventsThatStand: [VaultEvent] { releasedReads + refusals }

    /// Appends the entries recorded so far to the journal, in this transaction, each group's in its place.
    func appendWaitingEntries() throws {
        guard !waiting.isEmpty else { return }
        var events: [VaultEvent] = [], grouped: [VaultEvent] = []
        for held in waiting {
            switch held {
            case .event(let event): events.append(event)
            case .group(let key):
                let entries = groups.take(key)
                events += entries
                grouped += entries
            }
        }
        waiting.removeAll()
        database.appendWaitingEntries = nil
        // Counted as released before anything can fail: if the append does, they are recorded after the rollback.
        appendedReads += events.filter { $0.action == .recordOpen }
        for event in grouped { try vault.vault.journal.check(event, keys: auditKeys) }
        try vault.vault.journal.append(events, in: database, vaultID: vault.vaultID, keys: auditKeys)
        appendedActions += events.map(\.action)
        appendedCompartments.formUnion(events.compactMap(\.compartmentID))
    }

    /// What this transaction recorded, for the commit observers.
    var committedChange: CommittedChange { CommittedChange(actions: appendedActions, compartments: appendedCompartments) }

    func close() {
        isOpen = false
        groups.removeAll()
        waiting.removeAll()
        database.appendWaitingEntries = nil
    }
}

extension UnlockedVault {
    /// Runs `body` in one write transaction with its audit entries (see `VaultTransaction`): what it
    /// changes and what it records commit together, or, if it throws, neither does.
    ///
    /// One exception: a read recorded in a transaction that does not commit (the body opened a
    /// sealed record, then threw) is recorded again on its own once the transaction has rolled
    /// back, since the plaintext was released to the body all the same; so is a refusal the body
    /// recorded (`recordRefusal`) before it threw. If that fails too, its failure is the one thrown:
    /// an unrecorded read is the graver fault.
    public func transaction<Result>(_ body: (VaultTransaction) throws -> Result) throws -> Result {
        var standing: [VaultEvent] = []
        do {
            return try writeTransaction(body, releasedReads: &standing)
        } catch {
            if !standing.isEmpty { try recordAfterRollback(standing) }
            throw error
        }
    }

    /// Records the reads of a transaction that rolled back, in a transaction of their own (once:
    /// if this one fails, it is not tried again).
    private func recordAfterRollback(_ reads: [VaultEvent]) throws {
        var ignored: [VaultEvent] = []
        try writeTransaction({ transaction in
            for read in reads { try transaction.record(read) }
        }, releasedReads: &ignored)
    }

    /// One write transaction with its entries; `releasedReads` gets the reads it recorded, whether
    /// or not it commits.
    private func writeTransaction<Result>(_ body: (VaultTransaction) throws -> Result,
                                          releasedReads: inout [VaultEvent]) throws -> Result {
        var committed: CommittedChange?
        let result = try vault.withDatabase { database in
            try database.writeTransaction {
                let transaction = try VaultTransaction(vault: self, database: database)
                defer {
                    releasedReads = transaction.eventsThatStand
                    transaction.close()
                }
                let result = try body(transaction)
                try transaction.appendWaitingEntries()
                committed = transaction.committedChange
                return result
            }
        }
        // Reached only once the commit returned: observers never hear of a rollback.
        if let committed, !committed.actions.isEmpty { commits.notify(committed) }
        return result
    }
}
