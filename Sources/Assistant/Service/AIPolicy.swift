import CryptoVault
import PrivilegedSession

/// A project's AI policy: which providers each lane may use, whether only local ones, and what
/// happens when the leak guard finds an identifier in a prompt (redact it, or send nothing). Its
/// defaults come from the project's register (`AIPolicy.default(for:privileged:)`); the owner
/// changes them per project (`vaultctl ai policy`). A privileged project sends nothing to any
/// provider until its owner allows a named local provider for a named lane (`allowLocal`).
public struct AIPolicy: Sendable, Equatable {
    public enum OnFinding: String, Sendable, CaseIterable {
        case redact, refuse
    }

    /// Per lane, the providers it may use, in order of preference; a lane not listed may use any.
    public var laneProviders: [String: [String]]
    /// Only providers marked local (loopback or the owner's own devices).
    public var localOnly: Bool
    public var onFinding: OnFinding
    /// For a privileged project: per lane, the local providers its owner allowed (each an audit entry).
    public var privilegedAllowances: [String: Set<String>]

    public init(laneProviders: [String: [String]] = [:], localOnly: Bool = false, onFinding: OnFinding = .redact,
                privilegedAllowances: [String: Set<String>] = [:]) {
        self.laneProviders = laneProviders
        self.localOnly = localOnly
        self.onFinding = onFinding
        self.privilegedAllowances = privilegedAllowances
    }

    /// The register's defaults: a privileged project (Healthcare and Legal by default) local-only,
    /// refusing on any finding, allowed nothing; Journalism (sources) local-only and refusing;
    /// the rest any provider, with findings redacted.
    public static func `default`(for register: Register, privileged: Bool) -> AIPolicy {
        if privileged { return AIPolicy(localOnly: true, onFinding: .refuse) }
        switch register {
        case .journalism: return AIPolicy(localOnly: true, onFinding: .refuse)
        case .healthcare, .legal: return AIPolicy(localOnly: true, onFinding: .refuse)
        default: return AIPolicy()
        }
    }

    /// Where a lane's call goes: the first provider the policy lets it use, or why none.
    public func route(_ lane: Lane, privileged: Bool, providers: [ProviderConfiguration]) -> Route {
        let listed = laneProviders[lane.name]
        var candidates = listed.map { names in names.compactMap { name in providers.first { $0.name == name } } } ?? providers
        if localOnly || privileged { candidates = candidates.filter(\.isLocal) }
        if privileged {
            let allowed = privilegedAllowances[lane.name] ?? []
            candidates = candidates.filter { allowed.contains($0.name) }
            guard let chosen = candidates.first else {
                return .refused("the project is privileged: it sends nothing to a model unless its owner allows a local provider for \(lane.name) "
                                + "('vaultctl ai allow-local')")
            }
            return .provider(chosen)
        }
        guard let chosen = candidates.first else {
            if providers.isEmpty { return .refused("no provider is configured ('vaultctl ai providers add')") }
            return .refused("the project's policy lets \(lane.name) use no configured provider\(localOnly ? " (local only)" : "")")
        }
        return .provider(chosen)
    }

    public enum Route: Sendable {
        case provider(ProviderConfiguration)
        case refused(String)
    }

    /// The egress policy for a call of this project to `provider`: the project's compartment's rule
    /// says what a finding does; a privileged compartment may reach the provider only when it is
    /// local and allowed for the lane (the funnel refuses it otherwise).
    func egressPolicy(_ lane: Lane, project compartment: VaultCompartment, provider: ProviderConfiguration) -> EgressPolicy {
        var policy = EgressPolicy()
        if compartment.isPrivileged {
            if provider.isLocal, privilegedAllowances[lane.name]?.contains(provider.name) == true {
                policy.localModels[compartment.id] = [provider.destination.id]
            }
        } else {
            policy.compartmentRules[compartment.id] = EgressRule(destinations: Set(EgressDestination.Kind.allCases),
                                                                 whenFound: onFinding == .refuse ? .refuse : .redact)
        }
        return policy
    }
}
