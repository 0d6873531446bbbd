import CryptoVault
import Foundation

/// The vault's audit log: every vault event becomes an `AuditEntry`, chained to the one before and
/// added as a leaf of the Merkle tree, inside the transaction of the operation it records.
public final class AuditLog: VaultJournal, @unchecked Sendable {
    static let detailsAssociatedData = Array("vaultctl audit details v1".utf8)

    /// Who acts: the operating-system account running vaultctl.
    public let actor: String
    let clock: @Sendable () -> Int64
    let checkpointer: Checkpointer?

    /// `clock` dates the entries, the checkpoints and the audit keys this log makes.
    public init(actor: String = AuditLog.currentAccount(), checkpointer: Checkpointer? = Checkpointer(),
                clock: VaultClock = .system) {
        self.actor = Self.truncated(actor, toBytes: 255)
        self.checkpointer = checkpointer.map { Checkpointer(interval: $0.interval, clock: clock) }
        self.clock = clock.now
    }

    /// The longest prefix of whole characters that fits in `limit` UTF-8 bytes.
    static func truncated(_ text: String, toBytes limit: Int) -> String {
        var result = ""
        for character in text {
            guard result.utf8.count + character.utf8.count <= limit else { break }
            result.append(character)
        }
        return result
    }

    public static func currentAccount() -> String {
        let name = ProcessInfo.processInfo.userName
        return "\(name.isEmpty ? "unknown" : name) (uid \(getuid()))"
    }

    package func append(_ event: VaultEvent, in database: Database, vaultID: VaultID, keys: AuditKeys?) throws {
        try append([event], in: database, vaultID: vaultID, keys: keys)
    }

    /// Appends several events in the caller's transaction (a batch is durable when it commits),
    /// checkpointing every `interval` entries on the way.
    package func append(_ events: [VaultEvent], in database: Database, vaultID: VaultID, keys: AuditKeys?) throws {
        var (seq, previous) = try tail(of: database)
        let deviceID = try Self.deviceID(database)
        var writer = AuditEntryWriter(database: database)
        var tree = try AuditTreeStore(database: database).appender()
        var sinceCheckpoint = try checkpointer.map { tree.size - (try $0.lastCheckpointSize(database)) } ?? 0
        var encoded: [UInt8] = []
        var signingKey: AuditKeyChainStore.SigningKey?
        // The hashing key's pads are made once for the batch, not once per detail.
        let hasher = try keys.map { try $0.hasher ?? HMACSHA256Key($0.hashingKey) }
        for event in events {
            encoded.removeAll(keepingCapacity: true)
            try makeEntry(event, seq: seq, previousHash: previous, vaultID: vaultID, deviceID: deviceID, keys: keys, hasher: hasher)
                .encode(into: &encoded)
            try AuditEntry.checkEncodedSize(encoded.count)
            let leafHash = encoded.withUnsafeBytes(MerkleHash.leaf)
            previous = MerkleHash.bytes(leafHash)
            try writer.add(seq: seq, encoded: encoded, leafHash: leafHash)
            try tree.append(leafHash: leafHash)
            seq += 1
            sinceCheckpoint += 1
            if let checkpointer, sinceCheckpoint >= checkpointer.interval {
                // The checkpoint covers every entry so far: they are in the table before it is signed.
                try writer.flush()
                signingKey = try checkpointer.checkpoint(database, vaultID: vaultID, size: tree.size, rootHash: tree.rootHash,
                                                         current: signingKey)
                sinceCheckpoint = 0
            }
        }
        try writer.flush()
    }

    public func check(_ event: VaultEvent, keys: AuditKeys?) throws {
        try Self.validate(event)
        guard event.details.isEmpty || keys != nil else {
            throw AuditChainError(.invalidEvent, "details can only be recorded while the vault is unlocked")
        }
    }

    package func commandFinished(in database: Database, vaultID: VaultID) throws {
        try checkpointer?.checkpointIfBehind(database, vaultID: vaultID)
    }

    /// The next sequence number and the leaf hash it chains to.
    func tail(of database: Database) throws -> (UInt64, [UInt8]) {
        try AuditTreeStore(database: database).tail()
    }

    static func deviceID(_ database: Database) throws -> AuditDeviceID {
        guard let id = try Vault.auditDeviceID(in: database) else {
            throw AuditChainError(.malformedEntry, "the vault has no device id")
        }
        return id
    }

    func makeEntry(_ event: VaultEvent, seq: UInt64, previousHash: [UInt8], vaultID: VaultID, deviceID: AuditDeviceID,
                   keys: AuditKeys?, hasher: HMACSHA256Key? = nil) throws -> AuditEntry {
        try Self.validate(event)
        let details = try sealDetails(event.details, seq: seq, vaultID: vaultID, keys: keys, hasher: hasher)
        return AuditEntry(seq: seq, time: clock(), deviceID: deviceID, actor: actor, action: event.action.name,
                          compartmentID: event.compartmentID, subjectID: event.subjectID ?? [],
                          detailHashes: details.hashes, sealedDetails: details.sealed, previousHash: previousHash)
    }

    /// Seals the details under the audit sealing key and hashes each value under the hashing key.
    /// `hasher` is `keys.hashingKey` made ready for many messages (made here when not given).
    func sealDetails(_ details: [VaultEvent.Detail], seq: UInt64, vaultID: VaultID,
                     keys: AuditKeys?, hasher: HMACSHA256Key? = nil) throws -> (hashes: [AuditEntry.DetailHash], sealed: [UInt8]) {
        guard !details.isEmpty else { return ([], []) }
        guard let keys else { throw AuditChainError(.invalidEvent, "details can only be recorded while the vault is unlocked") }
        let sorted = details.sorted { $0.name < $1.name }
        let hasher = try hasher ?? keys.hasher ?? HMACSHA256Key(keys.hashingKey)
        let hashes = sorted.map { AuditEntry.DetailHash(name: $0.name, hash: Self.detailHash(name: $0.name, value: $0.value, hasher: hasher)) }
        let nonce = try SecureRandom.bytes(XChaChaPoly.nonceSize)
        let sealed = try XChaChaPoly.seal(Self.encodeDetails(sorted), key: keys.sealingKey, nonce: nonce,
                                          authenticating: Self.detailsAssociatedData + vaultID.bytes + AuditEntry.bigEndian(seq, width: 8))
        return (hashes, nonce + sealed)
    }

    /// HMAC-SHA-256(hashing key, name || 0x00 || value): what `vaultctl audit hash` computes for an auditor.
    public static func detailHash(name: String, value: String, key: SecureBytes) -> [UInt8] {
        HMAC.sha256(key: key, message: detailHashMessage(name: name, value: value))
    }

    /// `detailHash` with the hashing key made ready once (the same tag).
    static func detailHash(name: String, value: String, hasher: HMACSHA256Key) -> [UInt8] {
        hasher.tag(detailHashMessage(name: name, value: value))
    }

    static func detailHashMessage(name: String, value: String) -> [UInt8] {
        var message: [UInt8] = []
        message.reserveCapacity(name.utf8.count + 1 + value.utf8.count)
        message += name.utf8
        message.append(0)
        message += value.utf8
        return message
    }

    /// u8 count, then per detail: u8 name length, name, u16 value length, value.
    static func encodeDetails(_ details: [VaultEvent.Detail]) -> [UInt8] {
        var bytes: [UInt8] = [UInt8(details.count)]
        for detail in details {
            bytes += [UInt8(detail.name.utf8.count)] + Array(detail.name.utf8)
            bytes += AuditEntry.bigEndian(UInt64(detail.value.utf8.count), width: 2) + Array(detail.value.utf8)
        }
        return bytes
    }

    static func validate(_ event: VaultEvent) throws {
        let action = Array(event.action.name.utf8)
        guard !action.isEmpty, action.count <= 64, action.allSatisfy(AuditEntry.isActionCharacter) else {
            throw AuditChainError(.invalidEvent, "an audit action must be 1 to 64 characters of [a-z0-9.-]")
        }
        guard (event.subjectID?.count ?? 0) <= 64 else {
            throw AuditChainError(.invalidEvent, "an audit event's subject id has the wrong size")
        }
        guard event.details.count <= 32, Set(event.details.map(\.name)).count == event.details.count,
              event.details.allSatisfy({ detail in
                  let name = Array(detail.name.utf8)
                  return !name.isEmpty && name.count <= 32 && name.allSatisfy(AuditEntry.isDetailNameCharacter) && detail.value.utf8.count <= 4096
              }) else {
            throw AuditChainError(.invalidEvent, "audit details need distinct names of [a-z0-9_-] and values up to 4 KiB")
        }
    }
}
