@testable import Assistant
import CryptoVault
import Foundation
import PrivilegedSession
import Testing
import TestSupport
import Writing

/// AIService: policy before provider, the funnel before a byte is sent, an `ai.call` entry for every
/// outcome; a privileged project sends nothing unless its owner allowed a local provider for the lane.
@Suite struct AIServiceTests {
    static func llamaServer() throws -> ReplayServer { try ReplayServer { _ in Wire.chunkedEvents(RecordedStreams.llamaCpp) } }

    @Test func ordinaryProjectCallGoesThroughTheFunnelAndIsRecorded() throws {
        let fixture = try AssistantFixture()
        let server = try Self.llamaServer()
        defer { server.stop() }
        let project = try fixture.project()
        let service = AIService(vault: fixture.unlocked, providers: [try fixture.provider(server, local: false)])
        var decided: EgressRecord?
        let call = try service.run(.coauthorDraft, project: project, policy: AIPolicy(), request: AssistantFixture.chat) { progress in
            if case .decided(_, let record) = progress { decided = record }
        }
        #expect(call.answer.text == "The harbour was quiet.")
        #expect(decided?.decision == .allow)
        #expect(decided?.destination == "model:local/smollm2")
        #expect(decided?.compartmentIDs == [project.compartment.id])
        #expect(fixture.vault.recording.actions.suffix(2) == ["egress.decision", "ai.call"])
        let entry = try #require(fixture.vault.recording.events.withLock { $0.last })
        #expect(entry.details.first { $0.name == "outcome" }?.value == "answered")
        #expect(entry.details.first { $0.name == "lane" }?.value == "coauthor.draft")
        // Sizes and digests only: no detail holds the prompt's or the answer's words.
        #expect(!entry.details.contains { $0.value.contains("harbour") || $0.value.contains("boats") })
        #expect(server.requests.count == 1)
    }

    @Test func aCallerThatStopsAtTheDecisionSendsNothingAndTheLogSaysSo() throws {
        struct PageClosed: Error {}
        let fixture = try AssistantFixture()
        let server = try Self.llamaServer()
        defer { server.stop() }
        let project = try fixture.project()
        let service = AIService(vault: fixture.unlocked, providers: [try fixture.provider(server, local: false)])
        #expect(throws: PageClosed.self) {
            try service.run(.coauthorDraft, project: project, policy: AIPolicy(), request: AssistantFixture.chat) { progress in
                if case .decided = progress { throw PageClosed() }
            }
        }
        #expect(server.requests.isEmpty)
        #expect(fixture.vault.recording.actions.suffix(2) == ["egress.decision", "ai.call"])
        let entry = try #require(fixture.vault.recording.events.withLock { $0.last })
        #expect(entry.details.first { $0.name == "outcome" }?.value == "cancelled")
    }

    @Test func identifiersAreRedactedOnTheWireAndRestoredInTheAnswer() throws {
        let fixture = try AssistantFixture()
        let server = try ReplayServer { _ in
            Wire.chunkedEvents([#"{"choices":[{"index":0,"delta":{"content":"Write to [EMAIL-1] today."},"finish_reason":"stop"}]}"#, "[DONE]"])
        }
        defer { server.stop() }
        let service = AIService(vault: fixture.unlocked, providers: [try fixture.provider(server)])
        let request = ChatRequest(messages: [.user(PromptText("Remind me to write to jane.doe@example.org about the lease."))])
        let call = try service.run(.coauthorRevise, project: try fixture.project(), policy: AIPolicy(), request: request)
        #expect(call.egress.decision == .redact)
        #expect(!server.requests[0].bodyText.contains("jane.doe@example.org"))
        #expect(server.requests[0].bodyText.contains("[EMAIL-1]"))
        #expect(call.answer.text == "Write to jane.doe@example.org today.")
    }

    @Test func refusePolicySendsNothingWhenTheGuardFindsAnIdentifier() throws {
        let fixture = try AssistantFixture()
        let server = try Self.llamaServer()
        defer { server.stop() }
        let service = AIService(vault: fixture.unlocked, providers: [try fixture.provider(server)])
        let request = ChatRequest(messages: [.user(PromptText("Call 555-867-5309 or SSN 078-05-1120."))])
        let code = assistantErrorCode { _ = try service.run(.coauthorDraft, project: try fixture.project(), policy: AIPolicy(onFinding: .refuse), request: request) }
        #expect(code == .egressRefused)
        #expect(server.requests.isEmpty)
        let entry = try #require(fixture.vault.recording.events.withLock { $0.last })
        #expect(entry.action == .aiCall)
        #expect(entry.details.first { $0.name == "outcome" }?.value == "refused-by-funnel")
    }

    @Test func privilegedProjectSendsNothingByDefault() throws {
        let fixture = try AssistantFixture()
        let server = try Self.llamaServer()
        defer { server.stop() }
        let project = try fixture.project(.healthcare)
        #expect(project.isPrivileged)
        let service = AIService(vault: fixture.unlocked, providers: [try fixture.provider(server)])
        let code = assistantErrorCode { _ = try service.run(.coauthorSummarize, project: project, policy: .default(for: .healthcare, privileged: true),
                                                            request: AssistantFixture.chat) }
        #expect(code == .refusedByPolicy)
        #expect(server.requests.isEmpty)
    }

    @Test func privilegedProjectReachesAnAllowedLocalProviderOnlyOnItsLane() throws {
        let fixture = try AssistantFixture()
        let server = try Self.llamaServer()
        defer { server.stop() }
        let project = try fixture.project(.legal)
        var policy = AIPolicy.default(for: .legal, privileged: true)
        policy.privilegedAllowances["coauthor.summarize"] = ["local"]
        let service = AIService(vault: fixture.unlocked, providers: [try fixture.provider(server)])
        let call = try service.run(.coauthorSummarize, project: project, policy: policy, request: AssistantFixture.chat)
        #expect(call.egress.decision == .allow)
        #expect(assistantErrorCode { _ = try service.run(.coauthorDraft, project: project, policy: policy, request: AssistantFixture.chat) } == .refusedByPolicy)
        #expect(server.requests.count == 1)
    }

    @Test func aProviderNotMarkedLocalNeverGetsPrivilegedContentWhateverThePolicy() throws {
        let fixture = try AssistantFixture()
        let server = try Self.llamaServer()
        defer { server.stop() }
        let project = try fixture.project(.healthcare)
        let remote = try fixture.provider(server, name: "remote", local: false)
        var policy = AIPolicy()
        policy.privilegedAllowances["coauthor.draft"] = ["remote"]
        // The policy route filters it out...
        let service = AIService(vault: fixture.unlocked, providers: [remote])
        #expect(assistantErrorCode { _ = try service.run(.coauthorDraft, project: project, policy: policy, request: AssistantFixture.chat) } == .refusedByPolicy)
        // ...the funnel refuses it even when asked directly with an allowance for it...
        let funnel = try EgressFunnel(vault: fixture.unlocked, policy: EgressPolicy(localModels: [project.compartment.id: [remote.destination.id]]))
        let outcome = try funnel.submit(EgressRequest(destination: remote.destination, compartments: [project.compartment],
                                                      payload: ChatTranscript.encode(AssistantFixture.chat)))
        // (the funnel trusts the allowance: it is the provider that knows it is not local)
        let released = try #require(outcome.released)
        #expect(released.carriesPrivilegedContent)
        // ...and the provider refuses the released payload itself.
        #expect(assistantErrorCode { _ = try makeProvider(remote).complete(released) } == .egressRefused)
        #expect(server.requests.isEmpty)
    }

    @Test func aPayloadReleasedForAnotherProviderIsRefused() throws {
        let fixture = try AssistantFixture()
        let server = try Self.llamaServer()
        defer { server.stop() }
        let project = try fixture.project()
        let one = try fixture.provider(server, name: "one"), other = try fixture.provider(server, name: "other")
        let released = try fixture.released(AssistantFixture.chat, for: one, from: project)
        #expect(assistantErrorCode { _ = try makeProvider(other).complete(released) } == .egressRefused)
        #expect(server.requests.isEmpty)
    }
}
