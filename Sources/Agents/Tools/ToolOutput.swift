import CryptoVault

/// What a tool gave back, with where its content came from. The provenance travels with the text:
/// the funnel is told the compartments of whatever a later call carries out, and the task's taint
/// (§18.4) learns what the lane has read, from the data, not from what a caller declares.
public struct ToolOutput: Sendable {
    public let text: String
    public let provenance: ContentProvenance

    public init(text: String, provenance: ContentProvenance) {
        self.text = text
        self.provenance = provenance
    }
}

/// Where content came from: the vault compartments it was read from, and whether any of it came
/// from outside (a web page, an MCP tool's output), which nothing vouches for.
public struct ContentProvenance: Sendable, Equatable {
    public let compartments: [VaultCompartment]
    public let untrusted: Bool

    public init(compartments: [VaultCompartment], untrusted: Bool) {
        self.compartments = compartments
        self.untrusted = untrusted
    }

    /// Content from outside the vault.
    public static let outside = ContentProvenance(compartments: [], untrusted: true)

    public static func vault(_ compartments: [VaultCompartment]) -> ContentProvenance {
        ContentProvenance(compartments: compartments, untrusted: false)
    }

    public var isPrivileged: Bool { compartments.contains(where: \.isPrivileged) }
}
