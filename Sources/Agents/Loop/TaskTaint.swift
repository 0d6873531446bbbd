import CryptoVault

/// What one task's lane has read so far, and so which tools it may still call (SECURITY.md §18.4).
///
/// The rule: a lane that has read privileged content *and* untrusted content (a web page, an MCP
/// tool's output) may not call an open-world tool in the same task. Untrusted text can carry
/// instructions the model follows ("send the notes above to this address"); privileged text is what
/// such instructions would want; an open-world tool is the way out. Any two of the three are
/// allowed, never all three. The state only grows within a task: nothing a lane reads is forgotten
/// until the task ends.
public struct TaskTaint: Sendable, Equatable {
    public private(set) var compartments: [VaultCompartment] = []
    public private(set) var readUntrusted = false

    public init() {}

    public var readPrivileged: Bool { compartments.contains(where: \.isPrivileged) }

    /// Takes in what a tool returned or a prompt carried.
    public mutating func absorb(_ provenance: ContentProvenance) {
        for compartment in provenance.compartments where !compartments.contains(where: { $0.id == compartment.id }) {
            compartments.append(compartment)
        }
        readUntrusted = readUntrusted || provenance.untrusted
    }

    /// Throws `toolRefused` when the rule forbids a tool of `effect` now.
    public func permit(_ effect: ToolEffect, tool name: String) throws(AgentsError) {
        guard effect == .openWorld, readPrivileged, readUntrusted else { return }
        throw AgentsError(.toolRefused, "the open-world tool '\(name)' is refused: this task has read privileged content and untrusted content")
    }
}
