@testable import Assistant
import CryptoVault
import Foundation
import PrivilegedSession
import Testing
import TestSupport
import Writing

/// A lane run on a document: the answer passes the output contract and becomes a branch of kind
/// aiSuggestion against the document's current snapshot, the document itself untouched; an echo
/// fails and leaves no branch and no text; every call is an interaction, its record sealed.
@Suite struct SuggestionTests {
    static func answering(_ text: String) throws -> ReplayServer {
        let escaped = String(data: try JSONSerialization.data(withJSONObject: [text], options: []), encoding: .utf8)!.dropFirst().dropLast()
        return try ReplayServer { _ in Wire.chunkedEvents([#"{"choices":[{"index":0,"delta":{"content":\#(escaped)},"finish_reason":"stop"}]}"#, "[DONE]"]) }
    }

    static let paragraphs = ["The ferry left at six.", "Gulls followed it out past the breakwater."]

    @Test func passingAnswerBecomesAnAISuggestionBranch() throws {
        let fixture = try AssistantFixture()
        let server = try Self.answering("Sure! Here is the continuation:\n\nThe lamps came on along the quay.\n\nI hope this helps!")
        defer { server.stop() }
        let project = try fixture.project()
        let document = try fixture.document(in: project, Self.paragraphs)
        let service = AIService(vault: fixture.unlocked, providers: [try fixture.provider(server)])
        let suggestion = try service.suggest(.coauthorDraft, project: project, document: document, access: .vault, policy: AIPolicy())
        let branch = try #require(suggestion.branch)
        #expect(branch.kind == .aiSuggestion)
        #expect(suggestion.result == .passed("The lamps came on along the quay."))
        let (proposed, current, rows) = try fixture.unlocked.transaction { tx in
            let store = WritingStore(tx)
            return (try store.branchContent(branch.id, of: document, in: project.id), try store.documentContent(of: document, in: project.id),
                    try AssistantStore(tx).interactions(of: project.id))
        }
        #expect(proposed.blocks.map(\.text) == Self.paragraphs + ["The lamps came on along the quay."])
        #expect(current.blocks.map(\.text) == Self.paragraphs)   // the document is untouched
        #expect(rows.map(\.outcome) == ["suggested"])
        #expect(rows.first?.branch == branch.id)
        // The sealed record holds what was sent (the document's words went in the transcript) and what came back.
        let record = try fixture.unlocked.transaction { tx in
            try AIInteractionRecord(parsing: Array(try tx.openRecord(at: try AssistantStore.location(suggestion.interaction, part: 0), in: project.compartment).exposedCopy()))
        }
        #expect(record.stored == "The lamps came on along the quay.")
        #expect(String(decoding: record.prompt, as: UTF8.self).contains("The ferry left at six."))
        #expect(record.branch == branch.id.bytes)
        #expect(server.requests[0].bodyText.contains("House style"))
    }

    @Test func echoedDocumentFailsTheContractAndMakesNoBranch() throws {
        let fixture = try AssistantFixture()
        let server = try Self.answering(Self.paragraphs.joined(separator: "\n\n"))
        defer { server.stop() }
        let project = try fixture.project()
        let document = try fixture.document(in: project, Self.paragraphs)
        let service = AIService(vault: fixture.unlocked, providers: [try fixture.provider(server)])
        let suggestion = try service.suggest(.coauthorSummarize, project: project, document: document, access: .vault, policy: AIPolicy())
        #expect(suggestion.branch == nil)
        #expect(suggestion.result == .failed(.echoesDocument))
        let (branches, rows) = try fixture.unlocked.transaction { tx in
            (try WritingStore(tx).branches(of: document, in: project.id), try AssistantStore(tx).interactions(of: project.id))
        }
        #expect(branches.isEmpty)
        #expect(rows.map(\.outcome) == ["failed:echoes-document"])
    }

    @Test func privilegedDocumentReachesOnlyAnAllowedLocalProviderInASession() throws {
        let fixture = try AssistantFixture()
        let server = try Self.answering("Patient reports better sleep.")
        defer { server.stop() }
        let project = try fixture.project(.healthcare)
        let session = try fixture.session(of: project)
        let document = try fixture.document(in: project, ["Slept four hours; asked about moving the dose."], access: .session(session))
        let provider = try fixture.provider(server)
        try fixture.unlocked.transaction { tx in try AssistantStore(tx).addProvider(provider) }
        let service = AIService(vault: fixture.unlocked, providers: [provider])
        let refused = assistantErrorCode {
            _ = try service.suggest(.coauthorSummarize, project: project, document: document, access: .session(session),
                                    policy: try fixture.unlocked.transaction { try AssistantStore($0).policy(of: project) })
        }
        #expect(refused == .refusedByPolicy)
        #expect(server.requests.isEmpty)
        try fixture.unlocked.transaction { tx in try AssistantStore(tx).allowLocal(provider.name, lane: .coauthorSummarize, for: project) }
        #expect(fixture.vault.recording.actions.contains("ai.allow-local"))
        let policy = try fixture.unlocked.transaction { try AssistantStore($0).policy(of: project) }
        let suggestion = try service.suggest(.coauthorSummarize, project: project, document: document, access: .session(session), policy: policy)
        #expect(suggestion.branch?.kind == .aiSuggestion)
        #expect(server.requests.count == 1)
    }

    @Test func aRemoteProviderCannotBeAllowedForAPrivilegedProject() throws {
        let fixture = try AssistantFixture()
        let server = try Self.answering("x")
        defer { server.stop() }
        let project = try fixture.project(.legal)
        try fixture.unlocked.transaction { tx in try AssistantStore(tx).addProvider(try fixture.provider(server, name: "lan-box", local: false)) }
        let code = assistantErrorCode { try fixture.unlocked.transaction { tx in try AssistantStore(tx).allowLocal("lan-box", lane: .coauthorDraft, for: project) } }
        #expect(code == .refusedByPolicy)
    }

    @Test func interactionRecordRoundTripsAndRefusesDamage() throws {
        let record = AIInteractionRecord(document: [UInt8](repeating: 7, count: 16), lane: "coauthor.draft", provider: "model:local/smollm2",
                                         decision: "redact", outcome: "suggested", prompt: Array("chat-v1\u{1E}user\u{1F}hi".utf8), answer: "Hello",
                                         stored: "Hello", branch: [UInt8](repeating: 9, count: 16), promptTokens: 12, completionTokens: 3)
        let bytes = record.encoded()
        #expect(try AIInteractionRecord(parsing: bytes) == record)
        #expect(assistantErrorCode { _ = try AIInteractionRecord(parsing: bytes + [0]) } == .damagedRecord)
        #expect(assistantErrorCode { _ = try AIInteractionRecord(parsing: Array(bytes.dropLast())) } == .damagedRecord)
        var wrongVersion = bytes
        wrongVersion[3] = 2
        #expect(assistantErrorCode { _ = try AIInteractionRecord(parsing: wrongVersion) } == .damagedRecord)
    }
}
