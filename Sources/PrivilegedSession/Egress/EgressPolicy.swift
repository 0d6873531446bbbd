import CryptoVault

/// What content of one compartment may do: where it may go at all, and what happens when the leak
/// guard finds something in it on the way to an allowed destination.
public struct EgressRule: Sendable, Equatable {
    public var destinations: Set<EgressDestination.Kind>
    public var whenFound: EgressDecision

    public init(destinations: Set<EgressDestination.Kind>, whenFound: EgressDecision) {
        self.destinations = destinations
        self.whenFound = whenFound
    }

    /// Privileged content stays with this vault and its owner's paired devices, as it is; it leaves
    /// as a file (`file`) only when its owner asks inside a session of its compartment, which the
    /// policy checks per request (`EgressPolicy.decide`), so the rule alone never lets it out.
    public static let privileged = EgressRule(destinations: [.vault, .device, .file], whenFound: .allow)
    /// Other content may go anywhere, with what the leak guard finds redacted.
    public static let ordinary = EgressRule(destinations: Set(EgressDestination.Kind.allCases), whenFound: .redact)

    func decide(_ destination: EgressDestination.Kind, found: Bool) -> EgressDecision {
        guard destinations.contains(destination) else { return .refuse }
        return found ? whenFound : .allow
    }
}

/// The rules, per compartment and per register, with the defaults of `EgressRule`. A compartment's
/// own rule wins over its register's; a privileged compartment's rule may narrow the privileged
/// default but never widen it (its destinations are intersected with it, and findings are never
/// less restricted than the privileged default allows), so no configuration lets privileged content
/// reach a model or a share. Of the privileged destinations, `file` needs more than the rule: the
/// request must be made inside an open session of that compartment (a purpose on the record), else
/// it is refused.
///
/// The one way privileged content reaches a model: its owner allowed that model by name
/// (`localModels`: per privileged compartment, the `PROVIDER/MODEL` ids of `model:` destinations),
/// which the assistant puts here only for a provider marked local (loopback or one of the owner's
/// devices), on the record (SECURITY.md §17.2); the provider refuses privileged content again if it
/// is not local. Content so allowed leaves as it is (findings in privileged text are its substance).
public struct EgressPolicy: Sendable {
    public var registerRules: [Register: EgressRule] = [:]
    public var compartmentRules: [CompartmentID: EgressRule] = [:]
    public var localModels: [CompartmentID: Set<String>] = [:]

    public init(registerRules: [Register: EgressRule] = [:], compartmentRules: [CompartmentID: EgressRule] = [:],
                localModels: [CompartmentID: Set<String>] = [:]) {
        self.registerRules = registerRules
        self.compartmentRules = compartmentRules
        self.localModels = localModels
    }

    public func rule(for compartment: VaultCompartment) -> EgressRule {
        let configured = compartmentRules[compartment.id] ?? registerRules[compartment.register]
        guard compartment.isPrivileged else { return configured ?? .ordinary }
        guard let configured else { return .privileged }
        return EgressRule(destinations: configured.destinations.intersection(EgressRule.privileged.destinations),
                          whenFound: max(configured.whenFound, EgressRule.privileged.whenFound))
    }

    /// The strictest decision of the compartments the content derives from. `session` is the open
    /// privileged session the request was made in, if any (the caller has checked it is open).
    func decide(_ destination: EgressDestination, compartments: [VaultCompartment], found: Bool,
                session: CompartmentID? = nil) -> EgressDecision {
        compartments.map { compartment in
            if compartment.isPrivileged, destination.kind == .file, session != compartment.id { return .refuse }
            if compartment.isPrivileged, destination.kind == .model {
                return localModels[compartment.id]?.contains(destination.id) == true ? .allow : .refuse
            }
            return rule(for: compartment).decide(destination.kind, found: found)
        }.max() ?? .refuse
    }
}
