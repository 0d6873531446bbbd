import Foundation
import PrivilegedSession

/// Sessions as the daemon reports them: JSON, since `session list --json` prints it as it is.
public enum SessionListing {
    public static func json(_ summaries: [PrivilegedProcessingSession.Summary], limits: SessionLimits) throws -> Data {
        try JSONSerialization.data(withJSONObject: summaries.map { entry(for: $0, limits: limits) }, options: [.prettyPrinted, .sortedKeys])
    }

    public static func entry(for summary: PrivilegedProcessingSession.Summary, limits: SessionLimits) -> [String: Any] {
        let idleEnd = summary.lastUse.addingTimeInterval(limits.idleTimeout)
        let hardEnd = summary.startedAt.addingTimeInterval(limits.absoluteLimit)
        return [
            "id": summary.idString, "compartment": summary.compartment.name, "actor": summary.actor,
            "started_at": Timestamp.text(Int64(summary.startedAt.timeIntervalSince1970)),
            "last_use": Timestamp.text(Int64(summary.lastUse.timeIntervalSince1970)),
            "ends_by": Timestamp.text(Int64(min(idleEnd, hardEnd).timeIntervalSince1970)),
            "bundles_read": summary.bundlesRead, "bytes_read": summary.bytesRead,
        ]
    }
}
