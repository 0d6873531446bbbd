import CryptoVault
import Foundation
import Registers
import Writing

/// A lane run on a document, end to end: the document is read (with the access its project needs),
/// the prompt is the house-style preamble, the lane's task and the owner's instruction around the
/// document's text (which carries its compartment), the call goes through `run`, and the answer
/// passes the output contract. Passing output becomes an AISuggestion: a branch of kind
/// `aiSuggestion` against the document's current snapshot, made through the writing store's branch
/// API; nothing else lets a model's output touch a document. Every call, answered or not, is an
/// AIInteraction: a row and a sealed record in the project's compartment.
extension AIService {
    public struct Suggestion: Sendable {
        public let interaction: AIInteractionID
        public let call: Call
        public let result: ContractResult
        /// The branch made, when the answer passed the contract.
        public let branch: Branch?
    }

    /// Decide only, for a document: reads it (a `record.open` entry, as any read), builds the prompt
    /// `suggest` would send, and returns what would be decided (`decide(_:project:policy:request:)`).
    /// Sends nothing, makes no snapshot or branch. Show it, then pass it to `suggest(confirming:)`.
    public func decide(_ lane: Lane, project: WritingProject, document: NodeID, access: RecordAccess, policy: AIPolicy,
                       instruction: String? = nil) throws -> Decision {
        let content = try vault.transaction { tx in try WritingStore(tx, access: access).documentContent(of: document, in: project.id) }
        return try decide(lane, project: project, policy: policy, request: Self.prompt(lane, project: project, content: content, instruction: instruction).request)
    }

    /// The one path from a document to a suggestion: read the document and snapshot it (the branch's
    /// base), decide (`progress` gets `.decided` before a byte is sent; with `confirming`, nothing is
    /// sent unless the decision is still the one a person saw), run, hold the answer to the output
    /// contract, and make the aiSuggestion branch from a passing answer; the interaction is recorded
    /// whatever happened.
    public func suggest(_ lane: Lane, project: WritingProject, document: NodeID, access: RecordAccess, policy: AIPolicy,
                        instruction: String? = nil, confirming: Decision? = nil,
                        progress: (Progress) throws -> Void = { _ in }) throws -> Suggestion {
        let (content, base) = try vault.transaction { tx in
            let store = WritingStore(tx, access: access)
            return (try store.documentContent(of: document, in: project.id), try store.createSnapshot(of: document, in: project.id))
        }
        let prompt = Self.prompt(lane, project: project, content: content, instruction: instruction)
        let call: Call
        do {
            call = try run(lane, project: project, policy: policy, request: prompt.request, confirming: confirming, progress: progress)
        } catch {
            try recordFailure(lane, project: project, document: document, error: error)
            throw error
        }
        let result = OutputContract.check(call.answer.text, instructions: [prompt.system] + (instruction.map { [$0] } ?? []),
                                          document: prompt.document, revising: lane == .coauthorRevise)
        let branch = try vault.transaction { tx -> Branch? in
            var branch: Branch?
            if let text = result.text {
                let proposed = try Self.proposal(text, lane: lane, current: content, labels: FieldEditor(project.register))
                branch = try WritingStore(tx, access: access).createBranch(of: document, in: project.id, base: base.id, content: proposed,
                                                                            kind: .aiSuggestion, provenance: "\(lane.name) by \(call.provider.destination)")
            }
            let record = AIInteractionRecord(document: document.bytes, lane: lane.name, provider: call.provider.destination.description,
                                             decision: call.egress.decision.rawValue, outcome: result.failure.map { "failed:\($0.rawValue)" } ?? "suggested",
                                             prompt: call.released, answer: call.answer.text, stored: result.text ?? "", branch: branch?.id.bytes ?? [],
                                             promptTokens: UInt32(clamping: call.answer.usage?.promptTokens ?? Int(UInt32.max)),
                                             completionTokens: UInt32(clamping: call.answer.usage?.completionTokens ?? Int(UInt32.max)))
            try AssistantStore(tx).addInteraction(call.id, project: project, record: record)
            return branch
        }
        return Suggestion(interaction: call.id, call: call, result: result, branch: branch)
    }

    /// What a lane sends about a document: the house-style system prompt, and the chat around the
    /// document's text (the same bytes for `decide` and `suggest`, so a confirmation can match).
    struct Prompt {
        let system: String
        let document: String
        let request: ChatRequest
    }

    static func prompt(_ lane: Lane, project: WritingProject, content: DocumentContent, instruction: String?) -> Prompt {
        let document = PlainText.render(content, labels: FieldEditor(project.register))
        let system = HouseStyle.systemPrompt(lane.task, register: project.register)
        return Prompt(system: system, document: document,
                      request: request(system: system, instruction: instruction, document: document, register: project.register,
                                       compartment: project.compartment))
    }

    /// The chat for a lane: the system prompt, then the instruction and the document as the user's turn.
    static func request(system: String, instruction: String?, document: String, register: Register, compartment: VaultCompartment) -> ChatRequest {
        var user = PromptText("")
        if let instruction, !instruction.isEmpty { user = PromptText("Instruction: \(instruction)\n\n") }
        user = user.appending(PromptText(HouseStyle.resolve("The {scene}:\n", register: register)))
            .appending(PromptText(reading: document, from: compartment))
        return ChatRequest(messages: [.system(system), .user(user)], maximumTokens: 1024)
    }

    /// What the branch proposes: for a revision, the answer as the document (unchanged blocks keep
    /// their ids); for every other lane, the document with the answer's blocks after it.
    static func proposal(_ text: String, lane: Lane, current: DocumentContent, labels: FieldEditor) throws -> DocumentContent {
        let parsed = try PlainText.parse(Array(text.utf8), labels: labels)
        if lane == .coauthorRevise { return parsed.reusingIDs(of: current) }
        return DocumentContent(blocks: current.blocks + parsed.blocks)
    }

    /// A call that ended without an answer is an interaction too (no prompt kept: it may not have left).
    private func recordFailure(_ lane: Lane, project: WritingProject, document: NodeID, error: Error) throws {
        let code = (error as? AssistantError)?.code.rawValue ?? "error"
        let record = AIInteractionRecord(document: document.bytes, lane: lane.name, provider: "none", decision: "none", outcome: "failed:\(code)",
                                         prompt: [], answer: "", stored: "", branch: [])
        try vault.transaction { tx in try AssistantStore(tx).addInteraction(try AIInteractionID.random(), project: project, record: record) }
    }
}
