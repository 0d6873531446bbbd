/// What the funnel does with a payload. Ordered from least to most restrictive, so the decision for
/// content from several compartments is the strictest of theirs.
public enum EgressDecision: String, Sendable, Comparable, CaseIterable {
    /// The payload leaves as it is.
    case allow
    /// The payload leaves with every leak-guard finding replaced by its typed placeholder.
    case redact
    /// Nothing leaves.
    case refuse

    public static func < (lhs: EgressDecision, rhs: EgressDecision) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
