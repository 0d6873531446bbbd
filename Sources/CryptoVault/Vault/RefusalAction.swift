/// An audit action that records a refusal: the only kind of entry `VaultTransaction.recordRefusal`
/// takes, because an entry recorded that way stands though its transaction rolls back.
///
/// Why a type of its own: an entry that survives a rollback is a record of something that did not
/// change the vault. If the path took any `VaultEvent`, a caller could leave any entry it liked
/// (a `bundle.put`, a `peer.trust`) in the log for a change that never happened. So the refusal
/// actions are an explicit list here, and the initializer is private: a module cannot make a new
/// one without adding it to this list, where a reviewer sees it.
public struct RefusalAction: Sendable, Hashable, CaseIterable {
    /// The audit action the entry carries.
    public let action: AuditAction

    private init(_ name: String) { action = AuditAction(name) }

    /// A change of a project shared with this device to view only, refused by the writing store
    /// (SECURITY.md §19.9: `writing.change-refused`, reason `view-only`).
    public static let writingChange = RefusalAction("writing.change-refused")

    /// Every refusal action, the whole allow-list.
    public static let allCases: [RefusalAction] = [.writingChange]
}
