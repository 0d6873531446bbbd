@testable import Assistant
import CryptoVault
import Foundation
import PrivilegedSession
import Testing
import TestSupport
import Writing

/// Numbered placeholders (SECURITY.md §17.1): each distinct value the leak guard took out of a prompt
/// is `[KIND-N]` on the wire, and comes back as itself where the answer repeats its placeholder, on
/// the vault's side only; a placeholder the prompt did not hold is restored to nothing.
@Suite struct PlaceholderTests {
    /// A server that answers `text` and keeps what reached it.
    static func answering(_ text: String) throws -> ReplayServer {
        let escaped = String(data: try JSONSerialization.data(withJSONObject: [text], options: []), encoding: .utf8)!.dropFirst().dropLast()
        return try ReplayServer { _ in Wire.chunkedEvents([#"{"choices":[{"index":0,"delta":{"content":\#(escaped)},"finish_reason":"stop"}]}"#, "[DONE]"]) }
    }

    func call(_ prompt: String, answer: String) throws -> (AIService.Call, ReplayServer) {
        let fixture = try AssistantFixture()
        let server = try Self.answering(answer)
        let service = AIService(vault: fixture.unlocked, providers: [try fixture.provider(server)])
        let call = try service.run(.coauthorDraft, project: try fixture.project(), policy: AIPolicy(),
                                   request: ChatRequest(messages: [.user(PromptText(prompt))]))
        return (call, server)
    }

    @Test func twoDifferentEmailsGetTwoNumbersAndEachComesBackAsItself() throws {
        let (call, server) = try call("Forward the lease from jane.doe@example.org to tom.reed@example.net, then reply to jane.doe@example.org.",
                                      answer: "Sent [EMAIL-2] the lease; [EMAIL-1] has a reply.")
        defer { server.stop() }
        let wire = server.requests[0].bodyText
        #expect(wire.contains("from [EMAIL-1] to [EMAIL-2], then reply to [EMAIL-1]."), "\(wire)")
        #expect(!wire.contains("example.org") && !wire.contains("example.net"))
        #expect(call.answer.text == "Sent tom.reed@example.net the lease; jane.doe@example.org has a reply.")
        // What was released (and sealed in the interaction record) keeps the placeholders.
        #expect(String(decoding: call.released, as: UTF8.self).contains("[EMAIL-2]"))
    }

    @Test func oneCounterAcrossKindsInOrderOfFirstAppearance() throws {
        let (call, server) = try call("Call 555-867-5309 or write to jane.doe@example.org.", answer: "[EMAIL-2] / [PHONE-1]")
        defer { server.stop() }
        #expect(server.requests[0].bodyText.contains("Call [PHONE-1] or write to [EMAIL-2]."))
        #expect(call.answer.text == "jane.doe@example.org / 555-867-5309")
    }

    @Test(arguments: ["[EMAIL-3]", "[EMAIL]", "[PHONE-1]", "[EMAIL-01]", "[email-1]", "[EMAIL-1", "[[EMAIL-2]"])
    func aPlaceholderThePromptDidNotHoldIsRestoredToNothing(_ invented: String) throws {
        let (call, server) = try call("Write to jane.doe@example.org and tom.reed@example.net.", answer: "Try \(invented) now.")
        defer { server.stop() }
        let expected = invented == "[[EMAIL-2]" ? "Try [tom.reed@example.net now." : "Try \(invented) now."
        #expect(call.answer.text == expected)
    }

    @Test func aPlaceholderAlreadyWrittenInThePromptIsNeverANumberGivenToAValue() throws {
        // The writer's own text holds "[EMAIL-1]": the address gets another number, so the literal
        // text in the answer stays literal and the address comes back only for its own placeholder.
        let (call, server) = try call("Template: write to [EMAIL-1]. Real: jane.doe@example.org.", answer: "[EMAIL-1] and [EMAIL-2]")
        defer { server.stop() }
        #expect(server.requests[0].bodyText.contains("Real: [EMAIL-2]."))
        #expect(call.answer.text == "[EMAIL-1] and jane.doe@example.org")
    }

    @Test func aCombiningMarkAfterAPlaceholderDoesNotHideIt() {
        let restoration = PlaceholderRestoration(redactions: ["[EMAIL-1]": Array("jane.doe@example.org".utf8)])
        #expect(restoration.restore("Write to [EMAIL-1]\u{301} and «[EMAIL-1]».") == "Write to jane.doe@example.org\u{301} and «jane.doe@example.org».")
    }

    @Test func aRestoredValueIsNotReadAgainForPlaceholders() {
        let restoration = PlaceholderRestoration(redactions: ["[EMAIL-1]": Array("a[PHONE-2]@example.org".utf8), "[PHONE-2]": Array("555".utf8)])
        #expect(restoration.restore("[EMAIL-1] [PHONE-2]") == "a[PHONE-2]@example.org 555")
    }

    @Test func typedRedactionStaysTheDefaultForEveryOtherDestination() throws {
        let fixture = try AssistantFixture()
        let project = try fixture.project()
        let outcome = try EgressFunnel(vault: fixture.unlocked).submit(EgressRequest(destination: EgressDestination(kind: .file, id: "out"),
                                                                                     compartments: [project.compartment],
                                                                                     payload: Array("mail jane.doe@example.org".utf8)))
        #expect(outcome.released.map { String(decoding: $0.bytes, as: UTF8.self) } == "mail [EMAIL]")
        #expect(outcome.redactions.isEmpty)
    }
}
