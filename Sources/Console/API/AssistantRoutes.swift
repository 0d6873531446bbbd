import Assistant
import CryptoVault
import Foundation
import PrivilegedSession
import Writing

/// The assistant on a document (issue 18's lanes, SECURITY.md §16.5 and §17): the lanes of a
/// project with the provider its policy chooses for each; a check that shows what the egress funnel
/// would decide for the prompt before anything is sent; and the run, which calls the same library
/// function as `vaultctl ai run` with the decision the person saw, so that if the prompt, provider or
/// decision changed since (the document was edited meanwhile) nothing is sent. A passing answer
/// arrives as an aiSuggestion branch, adopted or discarded like any other.
struct AssistantRoutes {
    let access: ProjectAccess
    let checks: AssistantChecks

    /// `GET /api/projects/P/assistant`: the policy, and for each lane its provider or why none may serve it.
    func lanes(_ projectText: String) throws -> [String: Any] {
        let project = try access.project(projectText)
        // A locked privileged project shows nothing of itself, its AI policy included.
        guard access.access(for: project) != nil else {
            throw ConsoleError(.sessionRequired, "this project is privileged: start a session with a purpose to see its assistant")
        }
        let (policy, providers) = try access.vault.transaction { tx in (try AssistantStore(tx).policy(of: project), try AssistantStore(tx).providers()) }
        let lanes = Lane.known.map { lane -> [String: Any] in
            var row: [String: Any] = ["lane": lane.name, "task": HouseStyle.resolve(lane.task, register: project.register)]
            switch policy.route(lane, privileged: project.isPrivileged, providers: providers) {
            case .provider(let provider):
                row["provider"] = provider.destination.description
                row["local"] = provider.isLocal
            case .refused(let reason): row["refused"] = reason
            }
            return row
        }
        return ["privileged": project.isPrivileged, "local_only": policy.localOnly, "on_finding": policy.onFinding.rawValue, "lanes": lanes]
    }

    /// `POST …/documents/D/assistant/check {lane, instruction?}`: the funnel's decision for the
    /// prompt this lane would send now; nothing is sent or released. The answer's `check` names the
    /// decision for the run that confirms it.
    func check(_ projectText: String, _ nodeText: String, _ body: JSONBody) throws -> [String: Any] {
        let (project, node, recordAccess) = try resolve(projectText, nodeText)
        let lane = try Self.lane(body)
        let instruction = try Self.instruction(body)
        let policy = try access.vault.transaction { tx in try AssistantStore(tx).policy(of: project) }
        let decision = try service().decide(lane, project: project, document: node, access: recordAccess, policy: policy, instruction: instruction)
        let id = try checks.remember(AssistantChecks.Pending(decision: decision, project: project.id, document: node, instruction: instruction))
        var answer = Self.json(decision)
        answer["check"] = id
        return answer
    }

    /// `POST …/documents/D/assistant/run {check}`: runs the checked lane. The answer streams JSON
    /// lines: `decided` (the funnel's recorded decision, before any byte is sent), `received`
    /// (characters so far, at most five times a second), then `done` (the branch, or why none was
    /// made) or `error`.
    func run(_ projectText: String, _ nodeText: String, _ body: JSONBody) throws -> HTTPResponse {
        let (project, node, recordAccess) = try resolve(projectText, nodeText)
        let pending = try checks.take(try body.string("check"), project: project.id, document: node)
        let policy = try access.vault.transaction { tx in try AssistantStore(tx).policy(of: project) }
        let service = try service()
        return .jsonLines { write, _ in
            var characters = 0, nextShown = MonotonicDeadline.after(0.2)
            // The decision at once; then how much has streamed in, at most five times a second.
            func show(_ progress: AIService.Progress) throws {
                switch progress {
                case .decided(let provider, let record):
                    try write(ChangeFeed.json(["decided": ["provider": provider.destination.description, "local": provider.isLocal,
                                                           "decision": record.decision.rawValue, "findings": record.findings,
                                                           "prompt_size": record.payloadSize]]) + "\n")
                case .event(.text(let piece)):
                    characters += piece.count
                    guard nextShown.hasPassed else { return }
                    nextShown = .after(0.2)
                    try write(ChangeFeed.json(["received": characters]) + "\n")
                case .event:
                    break
                }
            }
            do {
                let suggestion = try service.suggest(pending.decision.lane, project: project, document: node, access: recordAccess, policy: policy,
                                                     instruction: pending.instruction, confirming: pending.decision, progress: show)
                var done: [String: Any] = ["interaction": suggestion.interaction.hex, "provider": suggestion.call.provider.destination.description,
                                           "received": characters]
                if let branch = suggestion.branch { done["branch"] = VersionRoutes.json(branch) }
                if let failure = suggestion.result.failure { done["failed"] = failure.rawValue }
                try write(ChangeFeed.json(["done": done]) + "\n")
            } catch {
                try? write(ChangeFeed.json(["error": Self.describe(error)]) + "\n")
            }
        }
    }

    /// The providers with their sealed header values (a custom endpoint's API key), as `vaultctl ai run` has them.
    private func service() throws -> AIService { try AIService(vault: access.vault) }

    private func resolve(_ projectText: String, _ nodeText: String) throws -> (WritingProject, NodeID, RecordAccess) {
        let project = try access.project(projectText)
        guard let recordAccess = access.access(for: project) else {
            throw ConsoleError(.sessionRequired, "this project is privileged: start a session with a purpose to use the assistant on it")
        }
        return (project, try NodeID(hex: nodeText), recordAccess)
    }

    static func lane(_ body: JSONBody) throws -> Lane {
        do { return try Lane.named(try body.string("lane")) } catch let error as AssistantError { throw ConsoleError(.invalidBody, error.message) }
    }

    /// The owner's instruction, bounded: it is part of the prompt.
    static func instruction(_ body: JSONBody) throws -> String? {
        guard let text = try body.optionalString("instruction"), !text.isEmpty else { return nil }
        guard text.utf8.count <= 4_096 else { throw ConsoleError(.invalidBody, "the instruction is longer than 4,096 bytes") }
        return text
    }

    static func json(_ decision: AIService.Decision) -> [String: Any] {
        ["lane": decision.lane.name, "provider": decision.provider ?? NSNull(), "refused": decision.refusal ?? NSNull(),
         "decision": decision.decision.rawValue, "findings": decision.findings, "prompt_size": decision.promptSize,
         "prompt_sha256": ByteEncoding.hex(decision.promptSHA256)]
    }

    /// What the page is told of a failed run: the library's code and message (never text of the document).
    static func describe(_ error: Error) -> [String: String] {
        if let assistant = error as? AssistantError { return ["code": assistant.code.rawValue, "message": assistant.message] }
        let mapped = ErrorMapping.consoleError(for: error)
        return ["code": mapped.code.rawValue, "message": mapped.message]
    }
}
