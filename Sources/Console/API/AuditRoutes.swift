import AuditChain
import CryptoVault
import Foundation

/// The audit log as the auditor's page shows it: the newest entries (their clear fields only; the
/// sealed details stay sealed), a full verification with its result, one entry's inclusion proof,
/// and the export with the genesis key an auditor checks it against (`vaultctl audit verify-export`).
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

    /// Entry N's RFC 9162 inclusion proof in the whole log, for the page to check on its own.
    func proof(_ entry: String) throws -> [String: Any] {
        guard let index = Int(entry), index >= 0, String(index) == entry else { throw ConsoleError(.invalidBody, "an entry is a number from 0") }
        let proof: (leafHash: [UInt8], size: Int, root: [UInt8], proof: [[UInt8]])
        do { proof = try AuditLogReader(vault: vault.vault).inclusionProof(entry: index, size: nil) }
        catch let error as AuditChainError where error.code == .indexOutOfRange { throw ConsoleError(.notFound, "the log has no entry \(index)") }
        let base64 = { (bytes: [UInt8]) in Data(bytes).base64EncodedString() }
        return ["index": index, "size": proof.size, "leaf_hash": base64(proof.leafHash), "root": base64(proof.root),
                "proof": proof.proof.map(base64)]
    }

    /// The genesis key (a signed-note vkey) that the auditor is given beside the export.
    func key() throws -> [String: Any] { ["vkey": try AuditLogReader(vault: vault.vault).genesisKey().vkey] }

    /// The export file, recorded as the CLI's `audit export` is.
    func export() throws -> HTTPResponse {
        try vault.vault.recordLocked(.auditExport)
        // As the CLI's export does: a signed checkpoint covers everything up to the export's own entry.
        try vault.vault.finishCommand()
        let export = try AuditLogReader(vault: vault.vault).exportBytes()
        return HTTPResponse(status: 200, fields: [("Content-Type", "application/octet-stream"),
                                                  ("Content-Disposition", "attachment; filename=\"audit-\(export.entries)-entries.vaudit\"")],
                            body: export.bytes)
    }

    static func json(_ entry: AuditEntry) -> [String: Any] {
        ["seq": entry.seq, "time": entry.time, "actor": entry.actor, "action": entry.action,
         "compartment": entry.compartmentID.map { "\($0)" } ?? NSNull(), "details": entry.detailHashes.map(\.name)]
    }
}
