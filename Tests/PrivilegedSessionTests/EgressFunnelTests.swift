import AuditChain
import CryptoVault
import Foundation
import PrivilegedSession
import Testing
import TestSupport

/// The audited vault, with payloads that carry identifiers and none.
private final class EgressFixture: AuditedVaultFixture {
    static let leaky = Array("Reach Jane at jane.doe@example.com, SSN 123-45-6789, about the visit.".utf8)
    static let clean = Array("The clinic is closed on public holidays.".utf8)

    func submit(_ destination: String, _ compartments: [VaultCompartment], _ payload: [UInt8],
                policy: EgressPolicy = EgressPolicy(), paired: Set<String>? = nil, own: Set<String>? = nil,
                session: PrivilegedProcessingSession? = nil) throws -> EgressOutcome {
        try EgressFunnel(vault: unlocked, policy: policy, pairedDevices: paired, ownDevices: own)
            .submit(EgressRequest(destination: try EgressDestination(parsing: destination), compartments: compartments, payload: payload,
                                  session: session))
    }
}

@Suite("Egress funnel: every decision made by policy, recorded, and only released bytes leave")
struct EgressFunnelTests {
    @Test("privileged content goes only to this vault and paired devices; anywhere else it is refused and nothing is released")
    func privilegedStaysHome() throws {
        let fixture = try EgressFixture()
        for destination in ["model:summarizer", "export:usb", "share:colleague", "sync:backup", "device:stranger", "vault:0123"] {
            let outcome = try fixture.submit(destination, [fixture.chart], EgressFixture.leaky)
            #expect(outcome.decision == .refuse && outcome.released == nil, "\(destination)")
        }
        let home = try fixture.submit("vault:self", [fixture.chart], EgressFixture.leaky)
        #expect(home.decision == .allow && home.released?.bytes == EgressFixture.leaky)
        let laptop = try fixture.submit("device:laptop-1", [fixture.chart], EgressFixture.leaky, paired: ["laptop-1"], own: ["laptop-1"])
        #expect(laptop.decision == .allow && laptop.released?.bytes == EgressFixture.leaky)
        // Paired, but someone else's device (issue 17): privileged content is refused there, ordinary content is not.
        let colleague = try fixture.submit("device:colleague-1", [fixture.chart], EgressFixture.clean, paired: ["colleague-1"], own: [])
        #expect(colleague.decision == .refuse && colleague.released == nil)
        #expect(try fixture.submit("device:colleague-1", [fixture.blog], EgressFixture.clean, paired: ["colleague-1"], own: []).decision == .allow)
    }

    @Test("privileged content leaves as a file only inside an open session of its compartment, as written, with the session on the record")
    func privilegedExportInSession() throws {
        let fixture = try EgressFixture()
        let session = try PrivilegedProcessingSession.start(vault: fixture.unlocked, compartment: fixture.chart, actor: "dr-lee",
                                                            purpose: "referral letter for the patient")
        let exported = try fixture.submit("export:/home/lee/letter.md", [fixture.chart], EgressFixture.leaky, session: session)
        #expect(exported.decision == .allow && exported.released?.bytes == EgressFixture.leaky, "the owner's export is not redacted")
        #expect(exported.record.sessionID == session.idString)
        #expect(try fixture.submit("export:/home/lee/letter.md", [fixture.chart], EgressFixture.leaky).decision == .refuse,
                "without a session")
        #expect(try fixture.submit("model:summarizer", [fixture.chart], EgressFixture.clean, session: session).decision == .refuse,
                "a session opens a file, never a model")
        #expect(try fixture.submit("share:colleague", [fixture.chart], EgressFixture.clean, session: session).decision == .refuse)
        #expect(try fixture.submit("export:/tmp/both.md", [fixture.chart, fixture.blog], EgressFixture.clean, session: session).decision == .allow,
                "an ordinary compartment mixed in changes nothing for clean text")
        let other = try fixture.unlocked.createCompartment(named: "legal", register: .legal)
        #expect(try fixture.submit("export:/tmp/other.md", [other], EgressFixture.clean, session: session).decision == .refuse,
                "a session of another compartment vouches for nothing")
        #expect(try fixture.submit("export:/tmp/mixed.md", [fixture.chart, other], EgressFixture.clean, session: session).decision == .refuse)
        let narrowed = EgressPolicy(compartmentRules: [fixture.chart.id: EgressRule(destinations: [.vault, .device], whenFound: .allow)])
        #expect(try fixture.submit("export:/tmp/n.md", [fixture.chart], EgressFixture.clean, policy: narrowed, session: session).decision == .refuse,
                "a compartment's rule can take the export away")
        try session.end()
        #expect(try fixture.submit("export:/tmp/late.md", [fixture.chart], EgressFixture.clean, session: session).decision == .refuse,
                "an ended session vouches for nothing")
        let logged = try EgressLog.items(of: fixture.unlocked)
        #expect(logged.first?.record.sessionID == session.idString && logged.first?.record.decision == .allow)
        #expect(logged.dropFirst().first?.record.sessionID == nil, "a request made outside a session names none")
    }

    @Test("ordinary content: clean text leaves as it is; identifiers are replaced by typed placeholders")
    func ordinaryRedacted() throws {
        let fixture = try EgressFixture()
        let clean = try fixture.submit("model:summarizer", [fixture.blog], EgressFixture.clean)
        #expect(clean.decision == .allow && clean.released?.bytes == EgressFixture.clean && clean.findings.isEmpty)
        let leaky = try fixture.submit("model:summarizer", [fixture.blog], EgressFixture.leaky)
        #expect(leaky.decision == .redact)
        #expect(leaky.findings.map(\.kind) == [.email, .socialSecurityNumber])
        #expect(String(decoding: leaky.released?.bytes ?? [], as: UTF8.self) == "Reach Jane at [EMAIL], SSN [SSN], about the visit.")
    }

    @Test("content from several compartments gets the strictest decision of theirs")
    func strictestWins() throws {
        let fixture = try EgressFixture()
        #expect(try fixture.submit("model:summarizer", [fixture.blog, fixture.chart], EgressFixture.clean).decision == .refuse)
        #expect(try fixture.submit("vault:self", [fixture.blog, fixture.chart], EgressFixture.leaky).decision == .redact)
    }

    @Test("policy per register and per compartment; no rule can widen where privileged content may go")
    func policyOverrides() throws {
        let fixture = try EgressFixture()
        let exportOnly = EgressRule(destinations: [.file], whenFound: .refuse)
        let byRegister = EgressPolicy(registerRules: [.general: exportOnly])
        #expect(try fixture.submit("model:summarizer", [fixture.blog], EgressFixture.clean, policy: byRegister).decision == .refuse)
        #expect(try fixture.submit("export:usb", [fixture.blog], EgressFixture.leaky, policy: byRegister).decision == .refuse)
        #expect(try fixture.submit("export:usb", [fixture.blog], EgressFixture.clean, policy: byRegister).decision == .allow)
        let open = EgressRule(destinations: Set(EgressDestination.Kind.allCases), whenFound: .allow)
        let byCompartment = EgressPolicy(registerRules: [.general: exportOnly], compartmentRules: [fixture.blog.id: open, fixture.chart.id: open])
        #expect(try fixture.submit("model:summarizer", [fixture.blog], EgressFixture.leaky, policy: byCompartment).decision == .allow,
                "a compartment's own rule wins over its register's")
        #expect(try fixture.submit("model:summarizer", [fixture.chart], EgressFixture.leaky, policy: byCompartment).decision == .refuse,
                "a privileged compartment's rule cannot open it to a model")
        let narrower = EgressPolicy(compartmentRules: [fixture.chart.id: EgressRule(destinations: [.vault], whenFound: .redact)])
        #expect(try fixture.submit("device:laptop-1", [fixture.chart], EgressFixture.leaky, policy: narrower, paired: ["laptop-1"],
                                   own: ["laptop-1"]).decision == .refuse)
        #expect(try fixture.submit("vault:self", [fixture.chart], EgressFixture.leaky, policy: narrower).decision == .redact)
    }

    @Test("every decision is an audit entry with sealed details: destination, compartments, decision, counts, hash and size; never the payload")
    func recorded() throws {
        let fixture = try EgressFixture()
        _ = try fixture.submit("model:summarizer", [fixture.blog], EgressFixture.leaky)
        _ = try fixture.submit("share:colleague", [fixture.chart, fixture.blog], EgressFixture.clean)
        let items = try EgressLog.items(of: fixture.unlocked)
        #expect(items.count == 2)
        #expect(items[0].record.destination == "model:summarizer" && items[0].record.decision == .redact)
        #expect(items[0].record.findings == ["email": 1, "socialSecurityNumber": 1])
        #expect(items[0].record.payloadSHA256 == SHA256.hash(EgressFixture.leaky) && items[0].record.payloadSize == EgressFixture.leaky.count)
        #expect(items[1].record.compartmentIDs == [fixture.chart.id, fixture.blog.id] && items[1].record.decision == .refuse)
        #expect(items[1].record.findings.isEmpty)
        let database = try Data(contentsOf: URL(fileURLWithPath: fixture.unlocked.vault.databasePath))
        for secret in ["jane.doe@example.com", "123-45-6789", "model:summarizer"] {
            #expect(database.range(of: Data(secret.utf8)) == nil, "\(secret) is in the database in clear")
        }
    }

    @Test("a file leaving is destination file:PATH; the old spelling export:PATH in an existing entry still reads, parses as file and verifies")
    func fileDestination() throws {
        let fixture = try EgressFixture()
        #expect(try EgressDestination(parsing: "file:/tmp/a.md") == EgressDestination(kind: .file, id: "/tmp/a.md"))
        #expect(try EgressDestination(parsing: "export:/tmp/a.md").description == "file:/tmp/a.md")
        #expect(throws: PrivilegedSessionError.self) { try EgressDestination(parsing: "exported:/tmp/a.md") }
        let written = try fixture.submit("file:/tmp/new.md", [fixture.blog], EgressFixture.clean)
        #expect(written.decision == .allow && written.record.destination == "file:/tmp/new.md")
        // An entry as vaultctl wrote it before the rename: its details are what they were, byte for byte.
        let old = EgressRecordDetails.old(destination: "export:/tmp/old.md", compartment: fixture.blog.id)
        try fixture.unlocked.record(VaultEvent(.egressDecision, compartmentID: fixture.blog.id, details: old))
        let items = try EgressLog.items(of: fixture.unlocked)
        #expect(items.map(\.record.destination) == ["file:/tmp/new.md", "export:/tmp/old.md"])
        #expect(try EgressDestination(parsing: items[1].record.destination).kind == .file)
        #expect(try AuditLogReader(vault: fixture.unlocked.vault).verify().entryCount > 0)
    }

    @Test("invalid UTF-8 and a large payload get a decision, not a crash")
    func hostilePayloads() throws {
        let fixture = try EgressFixture()
        var invalid = [UInt8](repeating: 0xFF, count: 1000) + Array(" SSN 123-45-6789 ".utf8) + [0xC3, 0x28, 0xE2, 0x82]
        invalid += [UInt8](repeating: 0x80, count: 500)
        let outcome = try fixture.submit("model:summarizer", [fixture.blog], invalid)
        #expect(outcome.decision == .redact && outcome.findings.map(\.kind) == [.socialSecurityNumber])
        #expect(outcome.released?.bytes.count == invalid.count - "123-45-6789".utf8.count + "[SSN]".utf8.count)
        let large = [UInt8]((0..<(8 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) })
        #expect(try fixture.submit("export:usb", [fixture.chart], large).decision == .refuse)
    }

    @Test("a payload of 100 MB gets a decision, with what it holds found and its size recorded")
    func hundredMegabytes() throws {
        let fixture = try EgressFixture()
        let note = Array("Follow-up visit went well; the patient walks without pain and sleeps through the night. ".utf8)
        var payload = [UInt8]()
        payload.reserveCapacity(100_000_000)
        while payload.count + note.count <= 100_000_000 - EgressFixture.leaky.count { payload += note }
        payload += EgressFixture.leaky
        let outcome = try fixture.submit("model:summarizer", [fixture.blog], payload)
        #expect(outcome.decision == .redact)
        #expect(Set(outcome.findings.map(\.kind)) == [.email, .socialSecurityNumber])
        #expect(outcome.released?.bytes.count == payload.count - EgressFixture.leaky.count
                + Array("Reach Jane at [EMAIL], SSN [SSN], about the visit.".utf8).count)
        let records = try EgressLog.items(of: fixture.unlocked)
        #expect(records.last?.record.payloadSize == payload.count, "\(records.last.map { "\($0)" } ?? "no record")")
    }

    @Test("malformed requests are refused with their reason")
    func malformed() throws {
        let fixture = try EgressFixture()
        func code(_ body: () throws -> Void) -> PrivilegedSessionErrorCode? {
            do { try body(); return nil } catch let error as PrivilegedSessionError { return error.code } catch { return nil }
        }
        #expect(code { _ = try fixture.submit("model:x", [], EgressFixture.clean) } == .invalidEgressRequest)
        for text in ["model", "mars:x", "model:", "model:a b", "model:\u{7}", ":x", "model:" + String(repeating: "a", count: 257)] {
            #expect(code { _ = try EgressDestination(parsing: text) } == .invalidDestination, "\(text.debugDescription)")
        }
        #expect(try EgressLog.items(of: fixture.unlocked).isEmpty, "a malformed request records nothing")
    }
}

/// An egress decision's details as the funnel records them (SECURITY.md §10.5), for an entry made as
/// an older vaultctl made it.
private enum EgressRecordDetails {
    static func old(destination: String, compartment: CompartmentID) -> [VaultEvent.Detail] {
        [.init("destination", destination), .init("compartments", compartment.hex), .init("decision", "allow"), .init("findings", "none"),
         .init("sha256", String(repeating: "ab", count: 32)), .init("size", "12")]
    }
}
