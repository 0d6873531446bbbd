/// A source of the current time for `AutoSnapshotPolicy`: the system's monotonic clock in the
/// appliance, a hand-moved one in tests.
public protocol SnapshotClock: Sendable {
    /// The time since an arbitrary fixed origin; it must never go backwards.
    func now() -> Duration
}

/// The appliance's clock: monotonic, so a wall-clock change cannot fake or hide active time.
public struct MonotonicSnapshotClock: SnapshotClock {
    private let origin = ContinuousClock.now

    public init() {}

    public func now() -> Duration { ContinuousClock.now - origin }
}

/// Why an automatic snapshot is due.
public enum AutoSnapshotTrigger: String, Sendable, Hashable, CaseIterable {
    /// Three minutes of active editing since the last snapshot.
    case activeEditing
    /// 500 characters of change since the last snapshot.
    case characterCount
    /// The writer left a document that has changed since its last snapshot.
    case documentSwitch
}

/// When AutoSnapshotService takes an automatic snapshot (the seed's rule): after every 3 minutes of
/// active editing, every 500 characters of change and every document switch. It decides only; the
/// service takes the snapshot and then calls `snapshotTaken()` (a titled snapshot resets it too).
///
/// Precisely:
/// - **Active editing.** Time counts as active between two consecutive edits that are at most
///   `idleGap` (30 s) apart: the gap is added to the active time. A longer gap is a pause and adds
///   nothing; the first edit after a snapshot (or after a switch) adds nothing either. So a writer who
///   types for a minute, goes for coffee and types for two more minutes has three minutes of active
///   editing, and a document left open overnight has none.
/// - **Characters of change.** Each edit adds the characters it inserted plus those it deleted (a
///   replacement of 3 characters by 5 adds 8); characters are Swift `Character`s, as the writer sees
///   them.
/// - A snapshot is due on the edit that brings the active time to `activeEditingInterval` (180 s) or
///   more, or the character count to `characterInterval` (500) or more; both triggers may fire on the
///   same edit. Once it is taken, both counters start again from zero (a snapshot covers everything
///   before it, whichever rule asked for it).
/// - **Document switch.** Leaving a document with edits since its last snapshot makes one due (the
///   left document's); leaving an unchanged one does not (it would be the same content-addressed
///   version). Either way the counters start again for the next document.
/// Time that goes backwards (it must not, but a clock is injected) counts as no time.
public struct AutoSnapshotPolicy: Sendable {
    public static let activeEditingInterval: Duration = .seconds(180)
    public static let characterInterval = 500
    public static let idleGap: Duration = .seconds(30)

    private let clock: any SnapshotClock
    private var lastEdit: Duration? = nil
    private var editsSinceSnapshot = 0

    /// Active editing time since the last snapshot.
    public private(set) var activeTime: Duration = .zero
    /// Characters of change since the last snapshot.
    public private(set) var charactersChanged = 0

    public init(clock: any SnapshotClock = MonotonicSnapshotClock()) {
        self.clock = clock
    }

    /// Records an edit that inserted and deleted the given numbers of characters; returns the
    /// triggers that make a snapshot due now (empty when none is).
    public mutating func recordEdit(inserted: Int, deleted: Int) -> Set<AutoSnapshotTrigger> {
        let now = clock.now()
        if let lastEdit {
            let gap = now - lastEdit
            if gap > .zero && gap <= Self.idleGap { activeTime += gap }
        }
        lastEdit = now
        editsSinceSnapshot += 1
        charactersChanged += max(0, inserted) + max(0, deleted)
        var due: Set<AutoSnapshotTrigger> = []
        if activeTime >= Self.activeEditingInterval { due.insert(.activeEditing) }
        if charactersChanged >= Self.characterInterval { due.insert(.characterCount) }
        return due
    }

    /// Records that the writer moved to another document; returns `[.documentSwitch]` when the
    /// document left has edits since its last snapshot. The counters restart either way.
    public mutating func recordDocumentSwitch() -> Set<AutoSnapshotTrigger> {
        let changed = editsSinceSnapshot > 0
        snapshotTaken()
        lastEdit = nil
        return changed ? [.documentSwitch] : []
    }

    /// Tells the policy a snapshot of the current document was taken (automatic or titled).
    public mutating func snapshotTaken() {
        activeTime = .zero
        charactersChanged = 0
        editsSinceSnapshot = 0
    }
}
