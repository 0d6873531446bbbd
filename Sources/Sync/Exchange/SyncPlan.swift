/// What the asking device does with one project in an exchange (SECURITY.md §19.9), decided by its
/// own grants and trust levels (`SyncEndpoint.plan(for:)`), never by the access the answering
/// device's offer claims.
struct SyncPlan: Sendable, Equatable {
    /// What the answering device may do with the project here.
    let access: SyncAccess
    /// Whether its records are taken: only from a device that may write the project here. This
    /// vault's records it lacks are sent to any device that may read the project here, also when
    /// this vault only views that device's project: then they are records an own device signed
    /// while it was the device's editor (review 17 s11, N-s11-3), the device's to take or refuse.
    let pulls: Bool
}
