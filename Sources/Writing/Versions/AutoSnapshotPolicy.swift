import CryptoVault

/// Why an automatic snapshot is due.
public enum AutoSnapshotTrigger: String, Sendable, Hashable, CaseIterable {
    /// Three minutes of active editing since the last snapshot.
    case activeEditing
    /// 500 characters of change since the last snapshot.
    case characterCount
    /// The writer left a document that has changed since its last snapshot.
    case documentSwitch
}

/// What `AutoSnapshotPolicy` remembers between edits: all of it, so that a store can keep it
/// between processes (`writing_auto_snapshots`, SECURITY.md §15.2) and a writer whose every edit is
/// one `vaultctl doc write` is counted as one who types in an editor.
public struct AutoSnapshotState: Sendable, Equatable {
    /// The last edit's time, in milliseconds since the Unix epoch; nil before the first edit since a
    /// switch (the time before it is not active time in this document).
    public var lastEdit: Int64?
    /// Active editing since the last snapshot, in milliseconds.
    public var activeMilliseconds: Int64
    /// Characters of change since the last snapshot.
    public var charactersChanged: Int
    /// Edits since the last snapshot (a switch away from a document with none takes no snapshot).
    public var editsSinceSnapshot: Int

    public init(lastEdit: Int64? = nil, activeMilliseconds: Int64 = 0, charactersChanged: Int = 0, editsSinceSnapshot: Int = 0) {
        self.lastEdit = lastEdit
        self.activeMilliseconds = activeMilliseconds
        self.charactersChanged = charactersChanged
        self.editsSinceSnapshot = editsSinceSnapshot
    }
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
///
/// Time is the wall clock (`VaultClock.precise`, in milliseconds), because the state outlives the
/// process that counted it. Time that goes backwards counts as no time, and a jump forward of more
/// than `idleGap` is a pause, so changing the clock adds at most 30 s of active time to one edit.
public struct AutoSnapshotPolicy: Sendable {
    public static let activeEditingInterval: Duration = .seconds(180)
    public static let characterInterval = 500
    public static let idleGap: Duration = .seconds(30)

    private let clock: VaultClock
    public private(set) var state: AutoSnapshotState

    /// Active editing time since the last snapshot.
    public var activeTime: Duration { .milliseconds(state.activeMilliseconds) }
    /// Characters of change since the last snapshot.
    public var charactersChanged: Int { state.charactersChanged }

    /// A policy that goes on from `state` (a new writer's when not given).
    public init(clock: VaultClock = .system, state: AutoSnapshotState = AutoSnapshotState()) {
        self.clock = clock
        self.state = state
    }

    /// Records an edit that inserted and deleted the given numbers of characters; returns the
    /// triggers that make a snapshot due now (empty when none is).
    public mutating func recordEdit(inserted: Int, deleted: Int) -> Set<AutoSnapshotTrigger> {
        let now = Int64((clock.precise() * 1000).rounded())
        // Sums saturate rather than trap: a state handed in may hold anything (the table refuses a
        // damaged row before it gets here), and a saturated counter only makes a snapshot due.
        if let lastEdit = state.lastEdit {
            let (gap, overflow) = now.subtractingReportingOverflow(lastEdit)
            if !overflow && gap > 0 && gap <= Self.milliseconds(Self.idleGap) { state.activeMilliseconds = Self.sum(state.activeMilliseconds, gap) }
        }
        state.lastEdit = now
        state.editsSinceSnapshot = Self.sum(state.editsSinceSnapshot, 1)
        state.charactersChanged = Self.sum(state.charactersChanged, Self.sum(max(0, inserted), max(0, deleted)))
        var due: Set<AutoSnapshotTrigger> = []
        if state.activeMilliseconds >= Self.milliseconds(Self.activeEditingInterval) { due.insert(.activeEditing) }
        if state.charactersChanged >= Self.characterInterval { due.insert(.characterCount) }
        return due
    }

    /// Records that the writer moved to another document; returns `[.documentSwitch]` when the
    /// document left has edits since its last snapshot. The counters restart either way.
    public mutating func recordDocumentSwitch() -> Set<AutoSnapshotTrigger> {
        let changed = state.editsSinceSnapshot > 0
        snapshotTaken()
        state.lastEdit = nil
        return changed ? [.documentSwitch] : []
    }

    /// Tells the policy a snapshot of the current document was taken (automatic or titled).
    public mutating func snapshotTaken() {
        state.activeMilliseconds = 0
        state.charactersChanged = 0
        state.editsSinceSnapshot = 0
    }

    private static func sum<Value: FixedWidthInteger>(_ a: Value, _ b: Value) -> Value {
        let (total, overflow) = a.addingReportingOverflow(b)
        return overflow ? .max : total
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }
}
