import AuditChain
import CryptoVault
import Foundation
import Sync
import Synchronization

/// `GET /api/events`: server-sent events telling the page what changed in the vault, whoever
/// changed it (this console, the CLI through the daemon or in a process of its own, a paired device
/// whose records sync took in). The feed reads the audit log, which every change enters: twice a second it takes the
/// entries appended since it last looked and, if any is a writing change, sends one event naming
/// the ids they were about (projects, documents: ids, never text). Many changes between two looks
/// become one event (coalesced); the page decides what to refresh, and holds it while its editor
/// is in use on that document. Sync's changes to a document an editor page said it has open are
/// kept back until it closes (`FeedHolds`, the coordinator's hold).
struct ChangeFeed: Sendable {
    let vault: UnlockedVault
    let coordinator: SyncCoordinator
    /// The clock of the stream's lifetime.
    var clock: VaultClock = .system
    /// Streams served at once; a page opens one.
    static let maximumStreams = 8
    static let interval: Duration = .milliseconds(500)
    /// A stream ends after this long; the browser's EventSource reconnects by itself.
    static let lifetime: Duration = .seconds(600)
    static let keepAliveEvery = 30
    private static let open = Mutex(0)

    func response() throws -> HTTPResponse {
        let admitted = Self.open.withLock { count -> Bool in
            guard count < Self.maximumStreams else { return false }
            count += 1
            return true
        }
        guard admitted else { throw ConsoleError(.overloaded, "too many live update streams are open") }
        let start = try AuditLogReader(vault: vault.vault).size()
        return .eventStream { write, stopping in
            defer { Self.open.withLock { $0 -= 1 } }
            run(from: start, write: write, stopping: stopping)
        }
    }

    private func run(from start: Int, write: (String) throws -> Void, stopping: () -> Bool) {
        var next = start, quiet = 0
        var holds = FeedHolds(coordinator: coordinator)
        let ends = MonotonicDeadline.after(Self.lifetime, on: clock)
        do {
            try write("retry: 2000\n\n")
            while !stopping(), !ends.hasPassed {
                Thread.sleep(forTimeInterval: 0.5)
                let entries = try AuditLogReader(vault: vault.vault).entries(from: next, limit: 10_000)
                next += entries.count
                let changes = holds.pass(entries.filter { Self.isChange($0.action) && !$0.subjectID.isEmpty }
                    .map { (ByteEncoding.hex($0.subjectID), $0.compartmentID?.hex) })
                quiet += 1
                if !changes.isEmpty {
                    try write("event: change\ndata: " + Self.json(["seq": next, "subjects": Self.subjects(of: changes),
                                                                   "compartments": Self.compartments(of: changes)]) + "\n\n")
                    quiet = 0
                } else if quiet >= Self.keepAliveEvery {
                    try write(": still here\n\n")
                    quiet = 0
                }
            }
        } catch {
            // The page went away or the log could not be read: the stream ends and the page reconnects.
        }
    }

    /// The compartments (hex ids, each once) of `changes`: a page tells by them whether a change (a
    /// document added elsewhere, whose id it has never seen) is in its project.
    static func compartments(of changes: [FeedHolds.Change]) -> [String] {
        Set(changes.compactMap(\.compartment)).sorted()
    }

    /// The ids (hex) `changes` were about, each once, in the order given (the log's; held ones first).
    static func subjects(of changes: [FeedHolds.Change]) -> [String] {
        var seen = Set<String>()
        return changes.map(\.subject).filter { seen.insert($0).inserted }
    }

    /// A search reads; everything else of the writing model's is a change, and so are a paired
    /// device's records taken in and the conflicts they made (their subject is the project).
    static func isChange(_ action: String) -> Bool {
        (action.hasPrefix("writing.") && action != "writing.search") || action == "sync.record-receive" || action == "sync.conflict-branch"
    }

    static func json(_ value: [String: Any]) -> String {
        (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
