import AuditChain
import CryptoVault

/// The egress decisions recorded in the audit log, with their details unsealed.
public enum EgressLog {
    public struct Item: Sendable {
        public let seq: UInt64
        public let time: Int64
        public let actor: String
        public let record: EgressRecord
    }

    public static func items(of vault: UnlockedVault) throws -> [Item] {
        let keys = try vault.auditKeys()
        return try AuditLogReader(vault: vault.vault).entries().filter { $0.action == AuditAction.egressDecision.name }.map { entry in
            let details = try AuditLogReader.details(of: entry, vaultID: vault.vault.vaultID, keys: keys)
            guard let record = EgressRecord(details: details) else {
                throw PrivilegedSessionError(.invalidEgressRecord, "audit entry \(entry.seq) is not a well-formed egress record")
            }
            return Item(seq: entry.seq, time: entry.time, actor: entry.actor, record: record)
        }
    }
}
