import Agents
import Assistant
import CryptoVault
import Foundation
import Synchronization
import Testing

/// A model that answers from a script, one reply per call, and keeps what it was asked.
final class ScriptedModel: AgentModel {
    private let replies: Mutex<[ModelReply]>
    let asked = Mutex<[(turns: [ConversationTurn], tools: [String], lane: String)]>([])

    init(_ replies: [ModelReply]) { self.replies = Mutex(replies) }

    func respond(to turns: [ConversationTurn], tools: [ToolDescriptor], lane: String,
                 provenance: ContentProvenance) async throws -> ModelReply {
        asked.withLock { $0.append((turns, tools.map(\.name), lane)) }
        return try replies.withLock { replies in
            guard !replies.isEmpty else { throw AgentsError(.mcpServerError, "the script ran out") }
            return replies.removeFirst()
        }
    }
}

/// A vault tool that returns fixed text with the provenance it is given.
struct FixedTool: ToolHandler {
    let text: String
    let provenance: ContentProvenance
    func run(_ tool: ToolDescriptor, arguments: JSONValue, taint: TaskTaint) throws -> ToolOutput {
        ToolOutput(text: text, provenance: provenance)
    }
}

@Suite struct AgentLoopTests {
    let fixture = try! MCPVaultFixture()
    let schema = try! StrictJSONParser().parse(#"{"type":"object","properties":{"q":{"type":"string"}},"additionalProperties":false}"#)

    func registry() throws -> ToolRegistry {
        var registry = ToolRegistry()
        try registry.register(ToolDescriptor(name: "read_chart", summary: "Reads the chart.", inputSchema: schema, effect: .readOnly, origin: .vault),
                              handler: FixedTool(text: "chart text", provenance: .vault([fixture.chart])))
        try registry.register(ToolDescriptor(name: "fetch_page", summary: "Fetches a page.", inputSchema: schema, effect: .openWorld, origin: .vault),
                              handler: FixedTool(text: "page text", provenance: .outside))
        return registry
    }

    func agent(budget: AgentBudget = AgentBudget(), effects: Set<ToolEffect> = [.readOnly, .openWorld]) -> AIAgent {
        AIAgent(name: "tester", title: "Tester", register: .legal, lane: "coauthor.summarize",
                instructions: "Review the {scene} and list the {plotBeat:plural}.", toolEffects: effects, budget: budget)
    }

    func call(_ id: String, _ name: String, _ arguments: String = "{}") -> ToolCallRequest {
        ToolCallRequest(id: id, name: name, arguments: arguments)
    }

    @Test func anAnswerAfterAToolCallEndsTheLoopAnsweredWithTheToolResultInTheConversation() async throws {
        let model = ScriptedModel([ModelReply(text: "", toolCalls: [call("1", "read_chart")], usage: TokenUsage(promptTokens: 10, completionTokens: 2)),
                                   ModelReply(text: "Summary.", usage: TokenUsage(promptTokens: 20, completionTokens: 3))])
        var taint = TaskTaint()
        let result = await AgentLoop(model: model, registry: try registry()).run(TaskUnit(index: 0, agent: agent(), instruction: "Summarise."),
                                                                                  input: "text", taint: &taint)
        #expect(result.stopReason == .answered && result.text == "Summary.")
        #expect(result.steps == 2 && result.usage.total == 35)
        #expect(result.turns.contains { $0.role == .tool && $0.text.contains("chart text") && $0.toolCallID == "1" })
        #expect(taint.readPrivileged && !taint.readUntrusted)
        // The system prompt speaks the register's words: a legal agent is asked about the document and issues.
        let system = model.asked.withLock { $0[0].turns[0].text }
        #expect(system == "Review the document and list the issues.")
    }

    @Test func theStepBudgetStopsAModelThatOnlyCallsTools() async throws {
        let model = ScriptedModel(Array(repeating: ModelReply(text: "", toolCalls: [call("x", "read_chart")]), count: 10))
        var taint = TaskTaint()
        let result = await AgentLoop(model: model, registry: try registry())
            .run(TaskUnit(index: 0, agent: agent(budget: AgentBudget(steps: 3, tokens: 1000, toolCalls: 100)), instruction: "Go."), input: "", taint: &taint)
        #expect(result.stopReason == .stepBudget && result.steps == 3 && result.text == nil)
    }

    @Test func theTokenBudgetStopsBeforeTheNextCall() async throws {
        let model = ScriptedModel(Array(repeating: ModelReply(text: "", toolCalls: [call("x", "read_chart")], usage: TokenUsage(promptTokens: 400, completionTokens: 200)),
                                        count: 10))
        var taint = TaskTaint()
        let result = await AgentLoop(model: model, registry: try registry())
            .run(TaskUnit(index: 0, agent: agent(budget: AgentBudget(steps: 10, tokens: 1000, toolCalls: 100)), instruction: "Go."), input: "", taint: &taint)
        #expect(result.stopReason == .tokenBudget && result.steps == 2)
    }

    @Test func theToolCallBudgetStopsTheLoop() async throws {
        let model = ScriptedModel([ModelReply(text: "", toolCalls: [call("1", "read_chart"), call("2", "read_chart"), call("3", "read_chart")])])
        var taint = TaskTaint()
        let result = await AgentLoop(model: model, registry: try registry())
            .run(TaskUnit(index: 0, agent: agent(budget: AgentBudget(steps: 5, tokens: 1000, toolCalls: 2)), instruction: "Go."), input: "", taint: &taint)
        #expect(result.stopReason == .toolCallBudget && result.toolCalls.count == 2)
    }

    @Test func aFailedModelCallAndAFailedContractAreStopReasonsWithNoText() async throws {
        var taint = TaskTaint()
        let failed = await AgentLoop(model: ScriptedModel([]), registry: try registry())
            .run(TaskUnit(index: 0, agent: agent(), instruction: "Go."), input: "", taint: &taint)
        #expect(failed.stopReason == .modelFailed("the script ran out") && failed.text == nil)
        let echoing = AgentLoop(model: ScriptedModel([ModelReply(text: "Go.")]), registry: try registry()) { answer, _ in
            answer == "Go." ? .failure(.init("the answer echoes its prompt")) : .success(answer)
        }
        let contract = await echoing.run(TaskUnit(index: 0, agent: agent(), instruction: "Go."), input: "", taint: &taint)
        #expect(contract.stopReason == .contractFailed("the answer echoes its prompt"))
        #expect(contract.outcome == .failed("output contract failed: the answer echoes its prompt"))
    }

    @Test func aToolNotOfferedToTheAgentIsRefusedAndTheModelIsTold() async throws {
        let model = ScriptedModel([ModelReply(text: "", toolCalls: [call("1", "fetch_page")]), ModelReply(text: "Done without it.")])
        var taint = TaskTaint()
        let result = await AgentLoop(model: model, registry: try registry())
            .run(TaskUnit(index: 0, agent: agent(effects: [.readOnly]), instruction: "Go."), input: "", taint: &taint)
        #expect(result.text == "Done without it.")
        #expect(result.toolCalls.first?.error == .unknownTool)
        #expect(model.asked.withLock { $0[0].tools } == ["read_chart"], "the open-world tool was not offered")
    }

    /// The taint rule, in a loop: privileged content read, then untrusted content read, then an
    /// open-world call asked for: refused (the tool never runs), in the same task; in a new task the
    /// same call runs.
    @Test func aLaneThatReadPrivilegedAndUntrustedContentCannotCallAnOpenWorldTool() async throws {
        let model = ScriptedModel([ModelReply(text: "", toolCalls: [call("1", "read_chart")]),
                                   ModelReply(text: "", toolCalls: [call("2", "fetch_page")]),
                                   ModelReply(text: "", toolCalls: [call("3", "fetch_page")]),
                                   ModelReply(text: "Done.")])
        var taint = TaskTaint()
        let result = await AgentLoop(model: model, registry: try registry()).run(TaskUnit(index: 0, agent: agent(), instruction: "Go."), input: "", taint: &taint)
        #expect(result.toolCalls.map(\.error) == [nil, nil, .toolRefused])
        #expect(result.turns.last { $0.role == .tool }?.text.contains("privileged content and untrusted content") == true)
        var fresh = TaskTaint()
        let registry = try registry()
        #expect(throws: Never.self) { _ = try registry.call("fetch_page", arguments: Array("{}".utf8), taint: &fresh) }
    }

    @Test func theOrderDoesNotMatterUntrustedFirstThenPrivileged() throws {
        let registry = try registry()
        var taint = TaskTaint()
        _ = try registry.call("fetch_page", arguments: Array("{}".utf8), taint: &taint)
        _ = try registry.call("fetch_page", arguments: Array("{}".utf8), taint: &taint)   // untrusted alone: allowed
        _ = try registry.call("read_chart", arguments: Array("{}".utf8), taint: &taint)
        #expect(throws: AgentsError(.toolRefused, "")) { try registry.call("fetch_page", arguments: Array("{}".utf8), taint: &taint) }
        #expect(throws: Never.self) { try registry.call("read_chart", arguments: Array("{}".utf8), taint: &taint) }
    }

    @Test func argumentsAreReadStrictlyAndCheckedBeforeTheToolRuns() throws {
        let registry = try registry()
        var taint = TaskTaint()
        #expect(throws: AgentsError(.invalidArguments, "")) { try registry.call("read_chart", arguments: Array(#"{"q":1}"#.utf8), taint: &taint) }
        #expect(throws: AgentsError(.invalidArguments, "")) { try registry.call("read_chart", arguments: Array(#"{"q":"a","q":"b"}"#.utf8), taint: &taint) }
        #expect(throws: AgentsError(.unknownTool, "")) { try registry.call("nope", arguments: Array("{}".utf8), taint: &taint) }
        #expect(taint == TaskTaint(), "nothing ran, nothing was read")
    }
}

@Suite struct MasterAgentTests {
    let agents = AIPreset(.legal).agents

    @Test func aPlanNamingKnownAgentsBecomesTheUnitsInOrderAndEachSeesThePreviousResult() async throws {
        let master = try MasterAgent(agents: agents)
        let planner = ScriptedModel([ModelReply(text: #"Here you go: ```{"steps":[{"agent":"issue-spotter","instruction":"Find issues."},{"agent":"clause-tightener","instruction":"Tighten."}]}```"#)])
        let task = await master.plan("Review this", lane: "coauthor.summarize", input: TaskInput(text: "The lease.", provenance: .vault([])), model: planner)
        #expect(task.plan == .model)
        #expect(task.units.map(\.agent.name) == ["issue-spotter", "clause-tightener"])
        let worker = ScriptedModel([ModelReply(text: "Issue: rent."), ModelReply(text: "Tightened.")])
        var taint = TaskTaint()
        let results = await master.run(task, loop: AgentLoop(model: worker, registry: ToolRegistry()), taint: &taint)
        #expect(results.map(\.text) == ["Issue: rent.", "Tightened."])
        #expect(worker.asked.withLock { $0[1].turns[1].text }.contains("The previous step's result:\nIssue: rent."))
    }

    @Test(arguments: ["no json at all", #"{"steps":[]}"#, #"{"steps":[{"agent":"hacker","instruction":"x"}]}"#,
                      #"{"steps":[{"agent":"issue-spotter"}]}"#, #"{"steps":[1,2,3,4,5]}"#])
    func anUnusablePlanFallsBackToTheLanesAgentAndSaysWhy(plan: String) async throws {
        let master = try MasterAgent(agents: agents)
        let task = await master.plan("Tighten it", lane: "coauthor.revise", input: TaskInput(text: "", provenance: .vault([])),
                                     model: ScriptedModel([ModelReply(text: plan)]))
        #expect(task.units.map(\.agent.name) == ["clause-tightener"])
        guard case .fallback(let reason) = task.plan else { Issue.record("not a fallback"); return }
        #expect(!reason.isEmpty)
    }

    @Test func theFirstFailedUnitEndsTheTask() async throws {
        let master = try MasterAgent(agents: agents)
        let task = AITask(lane: "coauthor.summarize", instruction: "x", input: TaskInput(text: "", provenance: .vault([])),
                          units: agents.enumerated().map { TaskUnit(index: $0, agent: $1, instruction: "x") }, plan: .given)
        var taint = TaskTaint()
        let results = await master.run(task, loop: AgentLoop(model: ScriptedModel([ModelReply(text: " ")]), registry: ToolRegistry()), taint: &taint)
        #expect(results.count == 1 && results[0].stopReason == .contractFailed("the answer is empty"))
    }

    @Test func everyRegisterHasStarterAgentsWhosePromptsUseItsOwnWords() {
        for preset in AIPreset.all {
            #expect(!preset.agents.isEmpty)
            for agent in preset.agents {
                let prompt = agent.systemPrompt()
                #expect(!prompt.contains("{") && !prompt.contains("}"), "\(agent.name)")
                if agent.register != .fiction && agent.register != .screenwriting { #expect(!prompt.contains("scene"), "\(agent.name): \(prompt)") }
            }
        }
        #expect(AIPreset.agent(named: "clinical-summariser")?.systemPrompt().contains("note") == true)
        #expect(AIPreset.agent(named: "line-editor")?.register == .fiction)
    }
}
