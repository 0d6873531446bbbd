import CryptoVault
import Foundation

/// Read access to a vault's audit log: its key, checkpoints, entries, proofs, verification, export.
public struct AuditLogReader {
    public let vault: Vault

    public init(vault: Vault) { self.vault = vault }

    public var origin: String { Checkpointer.origin(vaultID: vault.vaultID) }

    /// The genesis key as a signed-note vkey: what an auditor is given to verify exports.
    public func genesisKey() throws -> NoteVerifierKey {
        let publicKey = try vault.writeJournalState { try AuditKeyChainStore(database: $0).genesisPublicKey() }
        return try NoteVerifierKey(name: origin, publicKey: publicKey)
    }

    public func latestCheckpoint() throws -> String? {
        try vault.read { try Checkpointer.latestNote(in: $0) }
    }

    public func size() throws -> Int {
        try vault.read { try AuditTreeStore(database: $0).size }
    }

    /// Every entry, decoded, in order (filtering is the caller's).
    public func entries() throws -> [AuditEntry] {
        try vault.read { database in
            var entries: [AuditEntry] = []
            try AuditTreeStore.forEachStoredEntry(in: database) { _, entry, _ in entries.append(try AuditEntry(decoding: Array(entry))) }
            return entries
        }
    }

    /// Each stored entry's encoding, in order, from a database opened on its own (a closed vault's
    /// file, read-only): for tools that measure the log without unlocking the vault.
    package static func forEachEncodedEntry(in database: Database, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        try AuditTreeStore.forEachStoredEntry(in: database) { _, entry, _ in try body(entry) }
    }

    /// The entries from number `first` on, decoded, at most `limit` (what was appended since a
    /// reader last looked, without decoding the whole log again).
    public func entries(from first: Int, limit: Int) throws -> [AuditEntry] {
        try vault.read { database in
            try AuditTreeStore.storedEntries(from: first, limit: limit, in: database).map { try AuditEntry(decoding: $0) }
        }
    }

    /// The newest entry as stored (its encoding, §8.2), or nil for an empty log.
    public func lastStoredEntry() throws -> [UInt8]? {
        try vault.read { try AuditTreeStore.lastStoredEntry(in: $0) }
    }

    /// The details of an entry, unsealed with the vault's audit key.
    public static func details(of entry: AuditEntry, vaultID: VaultID, keys: AuditKeys) throws -> [VaultEvent.Detail] {
        guard entry.sealedDetails.count > 24 else { return [] }
        let plaintext = try XChaChaPoly.open(Array(entry.sealedDetails.dropFirst(24)), key: keys.sealingKey,
                                             nonce: Array(entry.sealedDetails.prefix(24)),
                                             authenticating: AuditLog.detailsAssociatedData + vaultID.bytes + AuditEntry.bigEndian(entry.seq, width: 8))
        return try decodeDetails(plaintext)
    }

    static func decodeDetails(_ bytes: [UInt8]) throws -> [VaultEvent.Detail] {
        try bytes.withUnsafeBytes { raw in
            var reader = EntryReader(raw)
            let details = try (0..<Int(try reader.byte())).map { _ in
                let name = String(decoding: raw[try reader.take(Int(try reader.byte()))], as: UTF8.self)
                let value = String(decoding: raw[try reader.take(Int(try reader.integer(2)))], as: UTF8.self)
                return VaultEvent.Detail(name, value)
            }
            guard reader.isAtEnd else { throw AuditChainError(.malformedEntry, "sealed details have trailing bytes") }
            return details
        }
    }

    /// Verifies the whole log, reading only: nothing is written (not even a missing genesis key, which
    /// is a failure here). A failure in a copy that shows it was taken mid-write (an unfinished
    /// write-ahead log, or tables that disagree under SQLite's full integrity check) is reported as an
    /// inconsistent copy, never as an altered entry: a false tamper alarm helps no one.
    public func verify() throws -> AuditVerifier.Report {
        do {
            return try vault.read { database in
                guard let genesis = try AuditKeyChainStore(database: database).storedGenesisPublicKey() else {
                    throw AuditVerificationFailure(entry: nil, reason: "the log has no genesis key")
                }
                let key = try NoteVerifierKey(name: origin, publicKey: genesis)
                return try AuditVerifier(snapshot: try AuditSnapshot.load(from: database, vaultID: vault.vaultID), genesis: key).verify()
            }
        } catch let failure as AuditVerificationFailure {
            if vault.writeAheadBytesAtOpen > 0 || !vault.passesFullIntegrityCheck() {
                // The failed check's own words ("entry 137 was altered") are left out on purpose.
                throw AuditVerificationFailure(entry: failure.entry, reason: Vault.inconsistentCopyMessage(vault.directory, writeAheadBytes: vault.writeAheadBytesAtOpen),
                                               isInconsistentCopy: true)
            }
            throw failure
        }
    }

    public func export(to output: FileDescriptor) throws -> Int {
        try vault.read { database in
            let snapshot = try AuditSnapshot.load(from: database, vaultID: vault.vaultID)
            try AuditExport.write(snapshot, to: output)
            return try AuditTreeStore(database: database).size
        }
    }

    /// The same export as `export(to:)`, in memory; with the number of entries in it.
    public func exportBytes() throws -> (bytes: [UInt8], entries: Int) {
        try vault.read { database in
            let snapshot = try AuditSnapshot.load(from: database, vaultID: vault.vaultID)
            var bytes: [UInt8] = []
            try AuditExport.write(snapshot) { bytes += $0 }
            return (bytes, try AuditTreeStore(database: database).size)
        }
    }

    public func inclusionProof(entry: Int, size: Int?) throws -> (leafHash: [UInt8], size: Int, root: [UInt8], proof: [[UInt8]]) {
        try vault.read { database in
            let tree = AuditTreeStore(database: database)
            let treeSize = try size ?? tree.size
            let proof = try tree.inclusionProof(index: entry, size: treeSize)
            guard let leaf = try tree.node(level: 0, index: entry) else { throw AuditChainError(.indexOutOfRange, "no entry \(entry)") }
            return (leaf, treeSize, try tree.rootHash(size: treeSize), proof)
        }
    }

    public func consistencyProof(from first: Int, to second: Int) throws -> (root1: [UInt8], root2: [UInt8], proof: [[UInt8]]) {
        try vault.read { database in
            let tree = AuditTreeStore(database: database)
            return (try tree.rootHash(size: first), try tree.rootHash(size: second), try tree.consistencyProof(from: first, to: second))
        }
    }

    /// The public keys of every epoch, for checking a checkpoint note given from outside.
    public func chainKeys() throws -> [NoteVerifierKey] {
        let keys = try vault.read { try AuditKeyChainStore(database: $0).storedKeys() }
        return try keys.map { try NoteVerifierKey(name: origin, publicKey: $0.publicKey) }
    }
}
