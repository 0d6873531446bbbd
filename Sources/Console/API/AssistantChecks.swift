import Assistant
import CryptoVault
import Synchronization
import Writing

/// The decisions a person has been shown and not yet confirmed (SECURITY.md §16.5): a run names the
/// check it confirms, and the library refuses to send if the fresh decision differs from it. Held in
/// the daemon's memory only, spent by the run that takes it, forgotten after ten minutes, at most 16.
final class AssistantChecks: Sendable {
    struct Pending: Sendable {
        let decision: AIService.Decision
        let project: ProjectID
        let document: NodeID
        let instruction: String?
    }

    static let lifetime: Duration = .seconds(600)
    static let maximum = 16
    private let pending = Mutex<[String: (check: Pending, expires: MonotonicDeadline)]>([:])
    /// The clock of the ten minutes (a test moves it by hand).
    let clock: VaultClock

    init(clock: VaultClock = .system) { self.clock = clock }

    /// Keeps `check` and answers its id (random, so one page cannot confirm another's check by guessing).
    func remember(_ check: Pending) throws -> String {
        let id = ByteEncoding.hex(try SecureRandom.bytes(16))
        let expires = MonotonicDeadline.after(Self.lifetime, on: clock)
        pending.withLock { table in
            table = table.filter { !$0.value.expires.hasPassed }
            if table.count >= Self.maximum, let oldest = table.min(by: { $0.value.expires < $1.value.expires }) { table[oldest.key] = nil }
            table[id] = (check, expires)
        }
        return id
    }

    /// Takes (and spends) the check `id` made for this document; refused when unknown, spent, expired or for another document.
    func take(_ id: String, project: ProjectID, document: NodeID) throws(ConsoleError) -> Pending {
        let found = pending.withLock { table in table.removeValue(forKey: id) }
        guard let found, !found.expires.hasPassed else {
            throw ConsoleError(.conflict, "that check is spent or has expired: check again before running the lane")
        }
        guard found.check.project == project, found.check.document == document else {
            throw ConsoleError(.invalidBody, "that check was made for another document")
        }
        return found.check
    }
}
