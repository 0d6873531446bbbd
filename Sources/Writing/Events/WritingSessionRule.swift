/// When edits belong to one writing session (SECURITY.md §15.5). The seed names no pause, so an
/// edit less than 30 minutes after the same device's last edit of the project continues its session
/// and a longer pause ends it: long enough that a writer who stops to read or to see a patient keeps
/// one session, short enough that morning and afternoon are two.
public enum WritingSessionRule {
    /// The pause, in seconds, that ends a session.
    public static let gap: Int64 = 30 * 60
    /// The documents one event holds: the 4,097th document of a session starts a new event, so an
    /// event's sealed value stays far inside a sealed record (4,096 × 20 bytes is 80 KiB).
    public static let maximumDocuments = 4096

    /// Whether an edit at `time` joins a session whose last edit was at `lastEdit`. A wall clock set
    /// back counts as no pause (the gap is measured forward only), so it cannot split a session.
    /// Times too far apart to subtract (only a damaged row's) are a pause.
    static func continues(lastEdit: Int64, at time: Int64) -> Bool {
        let (elapsed, overflow) = time.subtractingReportingOverflow(lastEdit)
        return !overflow && elapsed < gap
    }
}
