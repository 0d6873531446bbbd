import CryptoVault

/// The actions the assistant records (SECURITY.md §17.4). Details are ids, names, decisions, sizes
/// and digests: never a prompt's or an answer's text, never a header's value.
extension AuditAction {
    /// One model call on a lane: the lane, the provider, the funnel's decision, the sizes and SHA-256
    /// of what was sent and what came back, the token counts, and how it ended.
    public static let aiCall = AuditAction("ai.call")
    /// A provider added to or removed from the registry (its name, kind, whether local; never its key).
    public static let aiProviderAdd = AuditAction("ai.provider-add")
    public static let aiProviderRemove = AuditAction("ai.provider-rm")
    /// A project's AI policy changed.
    public static let aiPolicySet = AuditAction("ai.policy-set")
    /// A privileged project's owner allowed (or withdrew) a local provider for a lane.
    public static let aiAllowLocal = AuditAction("ai.allow-local")
}
