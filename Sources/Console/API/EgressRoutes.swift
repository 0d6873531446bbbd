import CryptoVault
import Foundation
import PrivilegedSession

/// The egress log for the owner and the auditor: every decision the funnel made (allow, redact,
/// refuse), where to, from which compartments, what it was decided on, size and digest; never the
/// payload. The same items `vaultctl egress log` lists, newest first.
struct EgressRoutes {
    let vault: UnlockedVault

    func list() throws -> [[String: Any]] {
        let names = Dictionary(try vault.compartments().map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        return try EgressLog.items(of: vault).reversed().map { item in
            ["seq": item.seq, "time": item.time, "actor": item.actor, "destination": item.record.destination,
             "compartments": item.record.compartmentIDs.map { names[$0] ?? "(destroyed)" }, "decision": item.record.decision.rawValue,
             "content": item.content.rawValue, "size": item.record.payloadSize,
             "sha256": ByteEncoding.hex(item.record.payloadSHA256)]
        }
    }
}
