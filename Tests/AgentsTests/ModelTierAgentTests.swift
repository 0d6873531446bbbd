import Agents
import Assistant
import CryptoVault
import Foundation
import PrivilegedSession
import Synchronization
import Testing
import TestSupport
import Writing

/// The model tier (make test-model, and make test after the suite): an agent's whole path against
/// the real local model, llama.cpp's server with SmolLM2-135M-Instruct that scripts/model-server
/// started (MODEL_SERVER_URL). A lane, the project's policy, the egress funnel, a streamed answer,
/// the output contract. The model is tiny: the
/// test holds the path to its promises (every step recorded, a clear stop reason, text only from a
/// passing answer), not the model to good prose.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["MODEL_SERVER_URL"] != nil,
                             "needs the local model server (make test-model starts it)"))
struct ModelTierAgentTests {
    let vault = try! TestVault(modules: [WritingSchema.module])
    /// The server's base (scripts/model-server prints it with /v1; the provider adds its own path).
    let url = (ProcessInfo.processInfo.environment["MODEL_SERVER_URL"] ?? "").replacingOccurrences(of: "/v1", with: "")
    let model = ProcessInfo.processInfo.environment["MODEL_SERVER_MODEL"] ?? "smollm2-135m-instruct"

    /// What a run saw: the funnel's decisions and the streamed pieces of text.
    final class Seen: Sendable {
        let decisions = Mutex<[EgressDecision]>([])
        let pieces = Mutex<Int>(0)
        func take(_ progress: AIService.Progress) {
            switch progress {
            case .decided(_, let record): decisions.withLock { $0.append(record.decision) }
            case .event(.text): pieces.withLock { $0 += 1 }
            case .event: break
            }
        }
    }

    func fixture() throws -> (WritingProject, NodeID, SnapshotID) {
        try vault.unlocked.transaction { transaction in
            let store = WritingStore(transaction)
            let project = try store.createProject(named: "Harbour", register: .fiction, kind: .longForm)
            let node = try store.addNode(.scene, titled: "Arrival", in: project.id)
            let text = "The ferry came in late. Mara waited on the pier, counting the gulls, and the rain did not stop.\n"
            let snapshot = try store.replaceDocumentContentAndSnapshot(of: node.id, in: project.id, with: try PlainText.parse(Array(text.utf8)))
            return (project, node.id, snapshot.snapshot.id)
        }
    }

    @Test func aLineEditorRunsOnTheRealModelThroughTheLaneAndTheFunnelAndItsAnswerPassesTheContractOrKeepsNoText() async throws {
        let (project, _, _) = try fixture()
        let provider = try ProviderConfiguration(name: "local", kind: .openai, url: url, model: model, isLocal: true)
        let seen = Seen()
        let lane = LaneAgentModel(service: AIService(vault: vault.unlocked, providers: [provider]), project: project,
                                  policy: AIPolicy.default(for: .fiction, privileged: false), maximumTokens: 96) { seen.take($0) }
        let agent = try #require(AIPreset.agent(named: "line-editor"))
        let loop = AgentLoop(model: lane, registry: ToolRegistry(), checkAnswer: LaneAgentModel.outputContract(revising: true))
        var taint = TaskTaint()
        taint.absorb(.vault([project.compartment]))
        let clock = ContinuousClock()
        var result: Agents.TaskResult!
        let elapsed = await clock.measure {
            result = await loop.run(TaskUnit(index: 0, agent: agent, instruction: "Tighten this scene."),
                                    input: "The ferry came in late. Mara waited on the pier, counting the gulls, and the rain did not stop.", taint: &taint)
        }
        print("Model tier: line-editor on SmolLM2-135M: \(result.stopReason) after \(result.steps) step(s), \(seen.pieces.withLock { $0 }) streamed "
              + "pieces, \(result.usage.total) tokens, \(elapsed)")
        #expect(seen.decisions.withLock { $0 } == [.allow], "one call, decided by the funnel before a byte was sent")
        #expect(seen.pieces.withLock { $0 } >= 2, "the answer streamed")
        #expect(result.usage.promptTokens > 0 && result.usage.completionTokens > 0, "tokens counted (or estimated) for the budget")
        // The agent's answer is held to the output contract; a branch from a lane's answer is made only
        // by AIService.suggest (what 'vaultctl ai run' calls), which ModelTierSuggestionTests runs on this model.
        switch result.stopReason {
        case .answered:
            #expect(result.text?.isEmpty == false)
        case .contractFailed(let reason):
            #expect(result.text == nil, "a failed answer keeps no text (\(reason))")
        default:
            Issue.record("the loop stopped for \(result.stopReason)")
        }
        let actions = vault.recording.actions
        #expect(actions.contains("ai.call") && actions.contains("egress.decision"), "\(actions)")
    }

    /// The master agent asks the real model for a plan. A 135M model rarely writes the plan's JSON
    /// right; either way the task has units, and a fallback says why (printed).
    @Test func theMasterAgentPlansOnTheRealModelOrFallsBackSayingWhy() async throws {
        let (project, _, _) = try fixture()
        let provider = try ProviderConfiguration(name: "local", kind: .openai, url: url, model: model, isLocal: true)
        let seen = Seen()
        let lane = LaneAgentModel(service: AIService(vault: vault.unlocked, providers: [provider]), project: project,
                                  policy: AIPolicy.default(for: .fiction, privileged: false), maximumTokens: 64) { seen.take($0) }
        let master = try MasterAgent(agents: AIPreset(.fiction).agents)
        let task = await master.plan("Tighten the scene, then check its continuity.", lane: "coauthor.revise",
                                     input: TaskInput(text: "", provenance: .vault([project.compartment])), model: lane)
        print("Model tier: master agent plan \(task.plan): \(task.units.map(\.agent.name))")
        #expect(!task.units.isEmpty)
        #expect(seen.decisions.withLock { $0 } == [.allow])
        if case .fallback(let reason) = task.plan { #expect(!reason.isEmpty) }
        #expect(task.units.allSatisfy { unit in AIPreset(.fiction).agents.contains(unit.agent) })
    }
}
