/// What a paired device may do with a shared compartment (SECURITY.md §9, "Sharing compartments").
public enum ShareRole: String, Sendable, CaseIterable {
    /// May open the compartment's bundles.
    case viewer
    /// May open them and seal new ones into it.
    case editor

    /// The role's byte in a share grant.
    var grantByte: UInt8 {
        switch self {
        case .viewer: 1
        case .editor: 2
        }
    }

    init?(grantByte: UInt8) {
        guard let role = Self.allCases.first(where: { $0.grantByte == grantByte }) else { return nil }
        self = role
    }
}
