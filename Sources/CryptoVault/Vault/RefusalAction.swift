/// An audit action that records a refusal: the only kind of entry `VaultTransaction.recordRefusal`
/// takes, because an entry recorded that way stands though its transaction rolls back.
///
/// Why a type of its own: an entry that survives a rollback is a record of something that did not
/// change the vault. If the path took any `VaultEvent`, a caller could leave any entry it liked
/// (a `bundle.put`, a `peer.trust`) in the log for a change that never happened. So the refusal
/// actions are the cases of this enum: the compiler makes `allCases` from them, and no module can
/// make a value that is not one (`init(rawValue:)` answers nil for any other name), so the list a
/// reviewer reads, and RefusalActionTests checks, is every value there is.
public enum RefusalAction: String, Sendable, CaseIterable {
    /// A change of a project shared with this device to view only, refused by the writing store
    /// (SECURITY.md §19.9: `writing.change-refused`, reason `view-only`).
    case writingChange = "writing.change-refused"

    /// The audit action the entry carries.
    public var action: AuditAction { AuditAction(rawValue) }
}
