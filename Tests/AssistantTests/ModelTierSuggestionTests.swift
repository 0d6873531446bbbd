@testable import Assistant
import CryptoVault
import Foundation
import PrivilegedSession
import Synchronization
import Testing
import TestSupport
import Writing

/// The model tier (make test-model): `AIService.suggest`, the one function `vaultctl ai run` and the
/// console's lane call, against the real local model (llama-cpp-python's server with
/// SmolLM2-135M-Instruct, started by scripts/model-server: MODEL_SERVER_URL). Decide first, then the
/// confirmed run: the lane, the policy, the funnel (an identifier redacted with a numbered
/// placeholder, checked in the interaction's sealed record), a streamed answer, the output contract,
/// and the aiSuggestion branch from a passing answer, or no branch and no text from a failing one.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["MODEL_SERVER_URL"] != nil,
                             "needs the local model server (make test-model starts it)"))
struct ModelTierSuggestionTests {
    let url = (ProcessInfo.processInfo.environment["MODEL_SERVER_URL"] ?? "").replacingOccurrences(of: "/v1", with: "")
    let model = ProcessInfo.processInfo.environment["MODEL_SERVER_MODEL"] ?? "smollm2-135m-instruct"

    @Test func aLaneOnADocumentRunsOnTheRealModelAndAPassingAnswerBecomesABranchThroughSuggest() throws {
        let fixture = try AssistantFixture()
        let project = try fixture.project(.fiction)
        let document = try fixture.document(in: project, ["The ferry came in late. Mara waited on the pier, counting the gulls.",
                                                          "Her sister's address, mara.lind@example.org, was on the parcel."])
        let provider = try ProviderConfiguration(name: "local", kind: .openai, url: url, model: model, isLocal: true)
        let service = AIService(vault: fixture.unlocked, providers: [provider])
        let decision = try service.decide(.coauthorDraft, project: project, document: document, access: .vault, policy: AIPolicy(),
                                          instruction: "Write the next sentence.")
        #expect(decision.decision == .redact && decision.findings == ["email": 1])
        let pieces = Mutex(0)
        let clock = ContinuousClock()
        var suggestion: AIService.Suggestion!
        let elapsed = try clock.measure {
            suggestion = try service.suggest(.coauthorDraft, project: project, document: document, access: .vault, policy: AIPolicy(),
                                             instruction: "Write the next sentence.", confirming: decision) { progress in
                if case .event(.text) = progress { pieces.withLock { $0 += 1 } }
            }
        }
        print("Model tier: coauthor.draft through AIService.suggest on SmolLM2-135M: \(pieces.withLock { $0 }) streamed pieces, "
              + "\(suggestion.result.failure.map { "failed the contract (\($0.rawValue))" } ?? "passed"), \(elapsed)")
        #expect(pieces.withLock { $0 } >= 2, "the answer streamed")
        let record = try fixture.unlocked.transaction { tx in
            try AIInteractionRecord(parsing: Array(try tx.openRecord(at: try AssistantStore.location(suggestion.interaction, part: 0),
                                                                     in: project.compartment).exposedCopy()))
        }
        let released = String(decoding: record.prompt, as: UTF8.self)
        #expect(released.contains("[EMAIL-1]") && !released.contains("mara.lind@example.org"), "what reached the model was redacted")
        let rows = try fixture.unlocked.transaction { tx in try AssistantStore(tx).interactions(of: project.id) }
        if let branch = suggestion.branch {
            #expect(branch.kind == .aiSuggestion && branch.state == .open)
            #expect(rows.map(\.outcome) == ["suggested"] && rows.first?.branch == branch.id)
        } else {
            #expect(suggestion.result.text == nil && record.stored.isEmpty, "a failing answer keeps no text")
            #expect(rows.first?.outcome.hasPrefix("failed:") == true)
        }
    }
}
