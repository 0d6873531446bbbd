/// How many of one receive's refusals are recorded one by one (SECURITY.md §19.9, "Refusals are
/// bounded"): a paired device's budget of audit entries for the time (`SyncRefusalBudget`), or no
/// bound. Refusals past it are counted, and recorded together as one summary entry (reason
/// `tooManyRefusals`, detail `unrecorded`) when the receive ends, so one batch of 4,096 refused
/// records costs the log at most the budget left and one entry. Used by one receive on one thread.
public final class SyncRefusalAllowance {
    private var left: Int
    /// Refusals recorded one by one, and refusals only counted.
    public private(set) var recorded = 0
    public private(set) var unrecorded = 0
    /// The count of `unrecorded` already written as a summary.
    var summarised = 0

    public init(_ allowance: Int) { left = max(0, allowance) }

    /// No bound: every refusal recorded (a receive no peer drives: repair, tests).
    public static var unbounded: SyncRefusalAllowance { SyncRefusalAllowance(Int.max) }

    /// Whether the next refusal is recorded; counted either way.
    func admit() -> Bool {
        guard left > 0 else {
            unrecorded += 1
            return false
        }
        left -= 1
        recorded += 1
        return true
    }
}
