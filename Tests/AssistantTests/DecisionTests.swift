@testable import Assistant
import CryptoVault
import Foundation
import PrivilegedSession
import Testing
import TestSupport
import Writing

/// Decide first, then send (the console's lane): `decide` shows what would happen and sends and
/// records nothing; `suggest(confirming:)` sends only if the decision is still the one shown.
@Suite struct DecisionTests {
    static let paragraphs = ["The ferry left at six.", "Write to jane.doe@example.org about the berth."]

    @Test func decideSaysWhatWouldHappenAndSendsAndRecordsNothing() throws {
        let fixture = try AssistantFixture()
        let server = try SuggestionTests.answering("The lamps came on.")
        defer { server.stop() }
        let project = try fixture.project()
        let document = try fixture.document(in: project, Self.paragraphs)
        let service = AIService(vault: fixture.unlocked, providers: [try fixture.provider(server)])
        let before = fixture.vault.recording.actions.count
        let decision = try service.decide(.coauthorDraft, project: project, document: document, access: .vault, policy: AIPolicy())
        #expect(decision.provider == "model:local/smollm2" && decision.refusal == nil)
        #expect(decision.decision == .redact && decision.findings == ["email": 1])
        #expect(decision.promptSize > 0 && decision.promptSHA256.count == 32)
        #expect(server.requests.isEmpty)
        let recorded = fixture.vault.recording.actions.dropFirst(before)
        #expect(!recorded.contains("egress.decision") && !recorded.contains("ai.call") && !recorded.contains("branch.create"), "\(Array(recorded))")
        // Confirmed unchanged: sent, and the branch is made.
        let suggestion = try service.suggest(.coauthorDraft, project: project, document: document, access: .vault, policy: AIPolicy(),
                                             confirming: decision)
        #expect(suggestion.branch?.kind == .aiSuggestion)
        #expect(server.requests.count == 1)
        #expect(suggestion.call.egress.payloadSHA256 == decision.promptSHA256)
    }

    @Test func aDocumentChangedAfterTheDecisionIsNotSent() throws {
        let fixture = try AssistantFixture()
        let server = try SuggestionTests.answering("The lamps came on.")
        defer { server.stop() }
        let project = try fixture.project()
        let document = try fixture.document(in: project, Self.paragraphs)
        let service = AIService(vault: fixture.unlocked, providers: [try fixture.provider(server)])
        let decision = try service.decide(.coauthorDraft, project: project, document: document, access: .vault, policy: AIPolicy())
        try fixture.unlocked.transaction { tx in
            let content = DocumentContent(blocks: [Block(id: try BlockID.random(), kind: .paragraph, text: "Call 555-867-5309 tonight.")])
            try WritingStore(tx).replaceDocumentContent(of: document, in: project.id, with: content)
        }
        let code = assistantErrorCode {
            _ = try service.suggest(.coauthorDraft, project: project, document: document, access: .vault, policy: AIPolicy(), confirming: decision)
        }
        #expect(code == .decisionChanged)
        #expect(server.requests.isEmpty)
        let rows = try fixture.unlocked.transaction { tx in try AssistantStore(tx).interactions(of: project.id) }
        #expect(rows.map(\.outcome) == ["failed:decisionChanged"])
        let call = try #require(fixture.vault.recording.events.withLock { $0.last { $0.action == .aiCall } })
        #expect(call.details.first { $0.name == "outcome" }?.value == "refused-changed")
    }

    @Test func aChangedPolicyOrProviderIsNotWhatWasConfirmed() throws {
        let fixture = try AssistantFixture()
        let server = try SuggestionTests.answering("The lamps came on.")
        defer { server.stop() }
        let project = try fixture.project()
        let document = try fixture.document(in: project, Self.paragraphs)
        let service = AIService(vault: fixture.unlocked, providers: [try fixture.provider(server)])
        let decision = try service.decide(.coauthorDraft, project: project, document: document, access: .vault, policy: AIPolicy())
        let stricter = assistantErrorCode {
            _ = try service.suggest(.coauthorDraft, project: project, document: document, access: .vault, policy: AIPolicy(onFinding: .refuse),
                                    confirming: decision)
        }
        #expect(stricter == .decisionChanged)
        let other = AIService(vault: fixture.unlocked, providers: [try fixture.provider(server, name: "other")])
        #expect(assistantErrorCode {
            _ = try other.suggest(.coauthorDraft, project: project, document: document, access: .vault, policy: AIPolicy(), confirming: decision)
        } == .decisionChanged)
        #expect(server.requests.isEmpty)
    }

    @Test func aPolicyRefusalIsADecisionToo() throws {
        let fixture = try AssistantFixture()
        let project = try fixture.project(.healthcare)
        let session = try fixture.session(of: project)
        let document = try fixture.document(in: project, ["Slept four hours."], access: .session(session))
        let decision = try AIService(vault: fixture.unlocked, providers: [])
            .decide(.coauthorSummarize, project: project, document: document, access: .session(session),
                    policy: .default(for: .healthcare, privileged: true))
        #expect(decision.provider == nil && decision.decision == .refuse)
        #expect(decision.refusal?.contains("privileged") == true)
    }
}
