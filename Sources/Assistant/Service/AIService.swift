import CryptoVault
import Foundation
import PrivilegedSession
import Writing

/// Every model call goes through here: the project's policy chooses a provider for the lane (or
/// refuses), the chat becomes a transcript the egress funnel decides on and records, and only a
/// `ReleasedPayload` reaches the provider. The answer comes back through the same door: redacted
/// identifiers are put back on the vault's side, and the call is an `ai.call` audit entry.
public struct AIService: Sendable {
    public let vault: UnlockedVault
    public let providers: [ProviderConfiguration]
    let providerFor: @Sendable (ProviderConfiguration) -> any ModelProvider

    public init(vault: UnlockedVault, providers: [ProviderConfiguration],
                providerFor: @escaping @Sendable (ProviderConfiguration) -> any ModelProvider = { makeProvider($0) }) {
        self.vault = vault
        self.providers = providers
        self.providerFor = providerFor
    }

    /// A service over the providers the vault holds, their headers' values opened into locked memory.
    public init(vault: UnlockedVault) throws {
        self.init(vault: vault, providers: try vault.transaction { tx in try AssistantStore(tx).providers() })
    }

    /// What a caller sees while a call runs: the decision (before any byte is sent), then each event.
    public enum Progress: Sendable {
        case decided(provider: ProviderConfiguration, record: EgressRecord)
        case event(ChatEvent)
    }

    /// The result of one call: who answered, what the funnel decided, and the answer (identifiers
    /// the funnel redacted put back where the answer repeats their placeholder).
    public struct Call: Sendable {
        public let id: AIInteractionID
        public let lane: Lane
        public let provider: ProviderConfiguration
        public let egress: EgressRecord
        public let answer: ChatAnswer
        /// The transcript as released (after redaction), for the interaction record.
        public let released: [UInt8]
    }

    /// What a call would do, shown before anything is sent: the provider the policy chooses (or
    /// why none), the funnel's decision on the prompt and what the leak guard found in it (counts by
    /// kind, never the text), and the prompt's size and digest, so a confirmation can be held to it.
    public struct Decision: Sendable, Equatable {
        public let lane: Lane
        /// `model:NAME/MODEL`, nil when the policy refuses the lane.
        public let provider: String?
        /// Why the policy refuses the lane (then `decision` is `refuse`).
        public let refusal: String?
        public let decision: EgressDecision
        public let findings: [String: Int]
        public let promptSize: Int
        public let promptSHA256: [UInt8]
    }

    /// Decide only: routes `request` and asks the funnel what it would decide (`EgressFunnel.preview`).
    /// Sends nothing, releases nothing, records nothing.
    public func decide(_ lane: Lane, project: WritingProject, policy: AIPolicy, request: ChatRequest) throws -> Decision {
        let payload = ChatTranscript.encode(request)
        switch policy.route(lane, privileged: project.isPrivileged, providers: providers) {
        case .refused(let reason):
            return Decision(lane: lane, provider: nil, refusal: reason, decision: .refuse, findings: [:], promptSize: payload.count,
                            promptSHA256: SHA256.hash(payload))
        case .provider(let provider):
            let record = try funnel(lane, project, provider, policy).preview(egressRequest(project, provider, request, payload))
            return Decision(lane: lane, provider: provider.destination.description, refusal: nil, decision: record.decision,
                            findings: record.findings, promptSize: record.payloadSize, promptSHA256: record.payloadSHA256)
        }
    }

    /// Runs `request` on `lane` for `project` under `policy`. Throws `.refusedByPolicy` when no
    /// provider may take the lane, `.egressRefused` when the funnel refuses (nothing is sent),
    /// `.decisionChanged` when `confirming` (the decision a person saw) is not what would be decided
    /// now (nothing is sent), and the provider's errors; each outcome is an `ai.call` entry.
    public func run(_ lane: Lane, project: WritingProject, policy: AIPolicy, request: ChatRequest, confirming: Decision? = nil,
                    progress: (Progress) throws -> Void = { _ in }) throws -> Call {
        let id = try AIInteractionID.random()
        if let confirming, try decide(lane, project: project, policy: policy, request: request) != confirming {
            try record(id, lane, project, provider: nil, egress: nil, outcome: "refused-changed")
            throw AssistantError(.decisionChanged, "what would be sent, or where, is no longer what was confirmed: decide again; nothing was sent")
        }
        let provider: ProviderConfiguration
        switch policy.route(lane, privileged: project.isPrivileged, providers: providers) {
        case .provider(let chosen): provider = chosen
        case .refused(let reason):
            try record(id, lane, project, provider: nil, egress: nil, outcome: "refused-by-policy")
            throw AssistantError(.refusedByPolicy, reason)
        }
        let payload = ChatTranscript.encode(request)
        let outcome = try funnel(lane, project, provider, policy).submit(egressRequest(project, provider, request, payload))
        do {
            try progress(.decided(provider: provider, record: outcome.record))
        } catch {
            // The caller stopped (a page closed after the decision was shown): nothing is sent, and the
            // log says so beside the decision it already holds.
            try record(id, lane, project, provider: provider, egress: outcome.record, outcome: "cancelled")
            throw error
        }
        guard let released = outcome.released else {
            try record(id, lane, project, provider: provider, egress: outcome.record, outcome: "refused-by-funnel")
            throw AssistantError(.egressRefused, "the egress funnel refused the prompt for \(provider.destination) "
                                 + "(\(outcome.record.findings.isEmpty ? "policy" : "the leak guard found " + Self.found(outcome.record))): nothing was sent")
        }
        var answer = ChatAnswer()
        do {
            try providerFor(provider).stream(released) { event in
                answer.add(event)
                try progress(.event(event))
            }
        } catch {
            try record(id, lane, project, provider: provider, egress: outcome.record, answer: answer, outcome: "failed:\(Self.code(of: error))")
            throw error
        }
        answer.text = PlaceholderRestoration(redactions: outcome.redactions).restore(answer.text)
        try record(id, lane, project, provider: provider, egress: outcome.record, answer: answer, outcome: "answered")
        return Call(id: id, lane: lane, provider: provider, egress: outcome.record, answer: answer, released: released.bytes)
    }

    private func funnel(_ lane: Lane, _ project: WritingProject, _ provider: ProviderConfiguration, _ policy: AIPolicy) throws -> EgressFunnel {
        try EgressFunnel(vault: vault, policy: policy.egressPolicy(lane, project: project.compartment, provider: provider))
    }

    /// The request the funnel decides on: to `model:PROVIDER/MODEL`, naming the project's compartment
    /// and every compartment the prompt's text was read from; a redaction numbers its placeholders
    /// so the answer's can be put back one to one.
    private func egressRequest(_ project: WritingProject, _ provider: ProviderConfiguration, _ request: ChatRequest,
                               _ payload: [UInt8]) -> EgressRequest {
        EgressRequest(destination: provider.destination, compartments: PromptText.union([project.compartment], request.compartments),
                      payload: payload, placeholders: .numbered)
    }

    /// The `ai.call` entry: ids, names, the decision, sizes and digests; never text.
    private func record(_ id: AIInteractionID, _ lane: Lane, _ project: WritingProject, provider: ProviderConfiguration?,
                        egress: EgressRecord?, answer: ChatAnswer? = nil, outcome: String) throws {
        var details: [VaultEvent.Detail] = []
        func add(_ name: String, _ value: String) { details.append(VaultEvent.Detail(name, value)) }
        add("lane", lane.name)
        add("project", project.id.hex)
        add("provider", provider?.destination.description ?? "none")
        add("decision", egress?.decision.rawValue ?? "refuse")
        if let egress {
            add("prompt_size", String(egress.payloadSize))
            add("prompt_sha256", ByteEncoding.hex(egress.payloadSHA256))
        }
        if let answer {
            let bytes = Array(answer.text.utf8)
            add("answer_size", String(bytes.count))
            add("answer_sha256", ByteEncoding.hex(SHA256.hash(bytes)))
            if let usage = answer.usage {
                add("prompt_tokens", String(usage.promptTokens))
                add("completion_tokens", String(usage.completionTokens))
            }
        }
        add("outcome", outcome)
        try vault.record(VaultEvent(.aiCall, compartmentID: project.compartment.id, subjectID: id.bytes, details: details))
    }

    static func found(_ record: EgressRecord) -> String {
        record.findings.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
    }

    static func code(of error: Error) -> String {
        (error as? AssistantError)?.code.rawValue ?? "error"
    }
}
