import AuditChain
import CryptoVault
import Foundation
import PrivilegedSession
import Testing
import TestSupport

/// Numbered placeholders and the funnel's preview (SECURITY.md §10.5, §11.5, §17.1).
@Suite struct NumberedRedactionTests {
    let guardian = LeakGuard()

    func numbered(_ text: String) -> (String, [String: String]) {
        let (bytes, values) = guardian.redactNumbered(Array(text.utf8))
        return (String(decoding: bytes, as: UTF8.self), values.mapValues { String(decoding: $0, as: UTF8.self) })
    }

    @Test func eachDistinctValueHasOneNumberAndARepeatKeepsIt() {
        let (text, values) = numbered("a@example.org, b@example.org, a@example.org, 555-867-5309")
        #expect(text == "[EMAIL-1], [EMAIL-2], [EMAIL-1], [PHONE-3]")
        #expect(values == ["[EMAIL-1]": "a@example.org", "[EMAIL-2]": "b@example.org", "[PHONE-3]": "555-867-5309"])
    }

    @Test func aNumberWhosePlaceholderIsAlreadyInThePayloadIsSkipped() {
        let (text, values) = numbered("[EMAIL-1] [PHONE-2] a@example.org 555-867-5309")
        // [EMAIL-1] is the writer's text, so the address is [EMAIL-2]; [PHONE-2] is too, so the phone
        // (next number 3) is [PHONE-3]: no placeholder text stands for two things.
        #expect(text == "[EMAIL-1] [PHONE-2] [EMAIL-2] [PHONE-3]")
        #expect(Set(values.keys) == ["[EMAIL-2]", "[PHONE-3]"])
    }

    @Test func typedRedactionIsUnchanged() {
        #expect(guardian.redact("a@example.org b@example.org") == "[EMAIL] [EMAIL]")
    }

    @Test func previewDecidesAsSubmitWouldButRecordsAndReleasesNothing() throws {
        let fixture = try AuditedVaultFixture()
        let funnel = try EgressFunnel(vault: fixture.unlocked)
        let reader = AuditLogReader(vault: fixture.unlocked.vault)
        let request = EgressRequest(destination: EgressDestination(kind: .model, id: "local/m"), compartments: [fixture.blog],
                                    payload: Array("mail a@example.org".utf8), placeholders: .numbered)
        let before = try reader.size()
        let preview = try funnel.preview(request)
        #expect(try reader.size() == before, "a preview is not an audit entry")
        #expect(preview.decision == .redact && preview.findings == ["email": 1])
        let outcome = try funnel.submit(request)
        #expect(outcome.record == preview)
        #expect(try reader.size() == before + 1, "the submit is")
        #expect(outcome.released.map { String(decoding: $0.bytes, as: UTF8.self) } == "mail [EMAIL-1]")
        #expect(outcome.redactions == ["[EMAIL-1]": Array("a@example.org".utf8)])
        // Privileged content to a model: refused in the preview as in the submit.
        let privileged = EgressRequest(destination: EgressDestination(kind: .model, id: "local/m"), compartments: [fixture.chart], payload: [0x61])
        #expect(try funnel.preview(privileged).decision == .refuse)
    }
}
