import AuditChain
import CryptoVault
import Foundation

/// The audit log as the auditor's page shows it: the newest entries (their clear fields only; the
/// sealed details stay sealed), and a full verification with its result.
struct AuditRoutes {
    let vault: UnlockedVault
    static let pageSize = 200

    /// `?action=PREFIX&before=SEQ`: up to 200 entries, newest first.
    func recent(_ request: HTTPRequest) throws -> [String: Any] {
        let entries = try AuditLogReader(vault: vault.vault).entries()
        let action = request.queryValue("action") ?? ""
        let before = request.queryValue("before").flatMap(UInt64.init) ?? UInt64.max
        let page = entries.reversed().lazy.filter { $0.seq < before && (action.isEmpty || $0.action.hasPrefix(action)) }.prefix(Self.pageSize)
        return ["size": entries.count, "entries": Array(page.map(Self.json))]
    }

    func verify() throws -> [String: Any] {
        do {
            let report = try AuditLogReader(vault: vault.vault).verify()
            try vault.vault.recordLocked(.auditVerify)
            return ["verified": true, "entries": report.entryCount, "checkpoints": report.checkpointCount, "epochs": report.epochCount]
        } catch let failure as AuditVerificationFailure {
            return ["verified": false, "reason": failure.reason]
        }
    }

    static func json(_ entry: AuditEntry) -> [String: Any] {
        ["seq": entry.seq, "time": entry.time, "actor": entry.actor, "action": entry.action,
         "compartment": entry.compartmentID.map { "\($0)" } ?? NSNull(), "details": entry.detailHashes.map(\.name)]
    }
}
