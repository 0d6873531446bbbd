import AuditChain
import CryptoVault

/// The egress decisions recorded in the audit log, with their details unsealed.
public enum EgressLog {
    public struct Item: Sendable {
        public let seq: UInt64
        public let time: Int64
        public let actor: String
        public let record: EgressRecord
        public let content: Content
    }

    /// What a decision was made on: a payload the leak guard scanned, or ciphertext it cannot read
    /// (a replica, a share grant), decided on its metadata alone (SECURITY.md §10.5), which the
    /// entry says with its `content` detail. An entry without one is of a scanned payload.
    public enum Content: String, Sendable {
        case plaintext
        case ciphertext
    }

    public static func items(of vault: UnlockedVault) throws -> [Item] {
        let keys = try vault.auditKeys()
        return try AuditLogReader(vault: vault.vault).entries().filter { $0.action == AuditAction.egressDecision.name }.map { entry in
            let details = try AuditLogReader.details(of: entry, vaultID: vault.vault.vaultID, keys: keys)
            guard let record = EgressRecord(details: details) else {
                throw PrivilegedSessionError(.invalidEgressRecord, "audit entry \(entry.seq) is not a well-formed egress record")
            }
            let content = details.first { $0.name == "content" }.map { Content(rawValue: $0.value) } ?? .plaintext
            guard let content else {
                throw PrivilegedSessionError(.invalidEgressRecord, "audit entry \(entry.seq) names an egress content that is neither plaintext nor ciphertext")
            }
            return Item(seq: entry.seq, time: entry.time, actor: entry.actor, record: record, content: content)
        }
    }
}
