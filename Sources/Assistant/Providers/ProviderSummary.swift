/// What may be shown of a provider (the console's list, `vaultctl ai providers list`): everything
/// but its headers' values, which stay sealed in the vault.
public struct ProviderSummary: Sendable, Equatable {
    public let name: String
    public let kind: ProviderConfiguration.Kind
    /// `model:NAME/MODEL`.
    public let destination: String
    public let url: String
    public let model: String
    public let isLocal: Bool
    public let headerNames: [String]

    init(_ configuration: ProviderConfiguration, headerNames: [String]) {
        name = configuration.name
        kind = configuration.kind
        destination = configuration.destination.description
        url = configuration.endpoint.description
        model = configuration.model
        isLocal = configuration.isLocal
        self.headerNames = headerNames
    }
}
