import Foundation
import PrivilegedSession

/// Sessions as the daemon reports them: JSON, since `session list --json` prints it as it is.
enum SessionListing {
    static func json(_ summaries: [PrivilegedProcessingSession.Summary], limits: SessionLimits) throws -> Data {
        try JSONSerialization.data(withJSONObject: summaries.map { entry(for: $0, limits: limits) }, options: [.prettyPrinted, .sortedKeys])
    }

    static func entry(for summary: PrivilegedProcessingSession.Summary, limits: SessionLimits) -> [String: Any] {
        let idleEnd = summary.lastUse.addingTimeInterval(limits.idleTimeout)
        let hardEnd = summary.startedAt.addingTimeInterval(limits.absoluteLimit)
        return [
            "id": summary.idString, "compartment": summary.compartment.name, "actor": summary.actor,
            "started_at": Output.timestamp(Int64(summary.startedAt.timeIntervalSince1970)),
            "last_use": Output.timestamp(Int64(summary.lastUse.timeIntervalSince1970)),
            "ends_by": Output.timestamp(Int64(min(idleEnd, hardEnd).timeIntervalSince1970)),
            "bundles_read": summary.bundlesRead, "bytes_read": summary.bytesRead,
        ]
    }

    /// The JSON a daemon sent, as a list of objects.
    static func parse(_ bytes: [UInt8]?) throws -> [[String: Any]] {
        guard let bytes, let list = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [[String: Any]] else {
            throw CommandError(message: "the daemon's answer is not a list of sessions", exitCode: .dataError)
        }
        return list
    }
}
