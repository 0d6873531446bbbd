import Sync

/// The live feed's side of the editor holds (SECURITY.md §16.5, §19.9): a change to a document an
/// editor page has open is not sent at once. One look later (sync reports to the coordinator once
/// its transaction has committed, so after the feed may have read the log) it is sent if it was
/// the page's own save or another local write, and kept back if the coordinator holds sync changes
/// of that document; what was kept back is sent once the coordinator no longer holds it (the
/// editor closed, or its lease ran out). Nothing is dropped: a change is late, never lost.
struct FeedHolds {
    typealias Change = (subject: String, compartment: String?)
    let coordinator: SyncCoordinator
    /// Seen at the last look while an editor had the document open.
    private var waiting: [Change] = []
    /// Kept back while the coordinator holds the document, by subject.
    private var held: [String: String?] = [:]

    init(coordinator: SyncCoordinator) {
        self.coordinator = coordinator
    }

    /// What to send of `changes` (the log's new writing changes, in order) and of those kept back before.
    mutating func pass(_ changes: [Change]) -> [Change] {
        let open = Set(coordinator.openDocuments.map(\.hex)), holding = Set(coordinator.heldDocuments.map(\.hex))
        var send: [Change] = []
        for change in waiting {
            if holding.contains(change.subject) { held[change.subject] = change.compartment } else { send.append(change) }
        }
        waiting = []
        for (subject, compartment) in held.sorted(by: { $0.key < $1.key }) where !holding.contains(subject) {
            send.append((subject, compartment))
            held[subject] = nil
        }
        for change in changes {
            if held[change.subject] != nil { continue }
            if open.contains(change.subject) { waiting.append(change) } else { send.append(change) }
        }
        return send
    }
}
