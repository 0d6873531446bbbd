/// What the asking device does with one project in an exchange (SECURITY.md §19.9), decided by its
/// own grants and trust levels (`SyncEndpoint.plan(for:)`), never by the access the answering
/// device's offer claims.
struct SyncPlan: Sendable, Equatable {
    /// What the answering device may do with the project here.
    let access: SyncAccess
    /// Whether its records are taken: only from a device that may write the project here.
    let pulls: Bool
    /// Whether this vault's records are sent: to any device that may read the project here, unless
    /// this vault is only a viewer of the project that device shared with it.
    let pushes: Bool
}
