import CryptoVault
import Foundation
import PrivilegedSession
import Testing
import TestSupport
@testable import Writing

/// A project's export from the library (`ProjectExport`, SECURITY.md §10.5): the only public way to
/// the file, through the egress funnel. The decision is recorded (destination, size and SHA-256 of
/// what was scanned, never the text), a privileged project leaves only in a session of its
/// compartment, what the leak guard finds is redacted in the file, and the file appears only
/// complete (no temporary file left, an existing one not replaced unless asked).
@Suite("Export through the library's funnel")
struct ProjectExportTests {
    /// "Harbour": a folder "One" holding the document "Arrival".
    static func harbour(_ fixture: WritingFixture, register: Register = .fiction, text: String = "The boat came in.") throws -> WritingProject {
        let project = try fixture.project("Harbour", register: register)
        let access: RecordAccess = project.isPrivileged ? .session(try fixture.session(of: project)) : .vault
        try fixture.store(access) { store in
            let folder = try store.addNode(.chapter, titled: "One", in: project.id)
            let document = try store.addNode(.scene, titled: "Arrival", in: project.id, under: folder.id)
            try store.replaceDocumentContent(of: document.id, in: project.id, with: try WritingFixture.paragraphs([text]))
        }
        return project
    }

    /// The details of every `egress.decision` the vault recorded, by name.
    static func decisions(_ fixture: WritingFixture) -> [[String: String]] {
        fixture.vault.recording.events.withLock { events in
            events.filter { $0.action == .egressDecision }.map { Dictionary($0.details.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a }) }
        }
    }

    /// The files in `folder` (a temporary file left behind would show here).
    static func files(in folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    }

    static func folder(_ fixture: WritingFixture) throws -> String {
        let folder = fixture.vault.root + "/out"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("md: the file is the project as Markdown, owner-only; the decision is recorded with its destination, size and SHA-256, never the text")
    func markdownRecorded() throws {
        let fixture = try WritingFixture()
        let project = try Self.harbour(fixture)
        let folder = try Self.folder(fixture)
        let outcome = try ProjectExport(vault: fixture.unlocked).write(project.id, as: .markdown, access: .vault, to: folder + "/harbour.md")
        let expected = "# Harbour\n\n## One\n\n### Arrival\n\nThe boat came in.\n"
        #expect(outcome.decision == .allow && outcome.written && outcome.path == folder + "/harbour.md")
        let written = try Data(contentsOf: URL(fileURLWithPath: folder + "/harbour.md"))
        #expect(String(decoding: written, as: UTF8.self) == expected)
        #expect(try Self.files(in: folder) == ["harbour.md"], "no temporary file is left beside it")
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: folder + "/harbour.md")[.posixPermissions] as? Int)
        #expect(mode == 0o600, "an export of plaintext is readable by its owner only: \(String(mode, radix: 8))")
        let decision = try #require(Self.decisions(fixture).last)
        #expect(decision["destination"] == "file:" + folder + "/harbour.md" && decision["decision"] == "allow", "\(decision)")
        #expect(decision["size"] == String(expected.utf8.count) && decision["sha256"] == ByteEncoding.hex(SHA256.hash(Array(written))))
        #expect(decision["compartments"] == project.compartment.id.hex && decision["session"] == nil)
        #expect(!decision.values.contains { $0.contains("boat") || $0.contains("Harbour") }, "the record never holds the text")
    }

    @Test("an existing file is not replaced unless asked, and nothing is decided for it; asked, it is replaced whole")
    func existingFile() throws {
        let fixture = try WritingFixture()
        let project = try Self.harbour(fixture)
        let path = try Self.folder(fixture) + "/harbour.html"
        try Data("kept".utf8).write(to: URL(fileURLWithPath: path))
        let export = try ProjectExport(vault: fixture.unlocked)
        let refusal = #expect(throws: CryptoVaultError.self) {
            try export.write(project.id, as: .html, access: .vault, to: path)
        }
        #expect(refusal?.code == .fileExists, "\(String(describing: refusal))")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "kept" && Self.decisions(fixture).isEmpty)
        #expect(try export.write(project.id, as: .html, access: .vault, to: path, replacing: true).written)
        let page = try String(contentsOfFile: path, encoding: .utf8)
        #expect(page.hasPrefix("<!DOCTYPE html>\n") && page.contains("<h3>Arrival</h3>") && page.contains("<p>The boat came in.</p>"), "\(page)")
    }

    @Test("a privileged project without a session is refused for that reason before anything is decided or written; in one, it leaves as written, the session named")
    func privileged() throws {
        let fixture = try WritingFixture()
        let note = "S: slept badly; reach her at jane.doe@example.com"
        let project = try Self.harbour(fixture, register: .healthcare, text: note)
        #expect(project.isPrivileged)
        let folder = try Self.folder(fixture)
        let export = try ProjectExport(vault: fixture.unlocked)
        let refusal = #expect(throws: WritingError.self) {
            try export.write(project.id, as: .markdown, access: .vault, to: folder + "/intake.md")
        }
        #expect(refusal?.code == .privilegedSessionRequired && refusal?.message.contains("privileged processing session") == true,
                "\(String(describing: refusal))")
        #expect(try Self.files(in: folder).isEmpty && Self.decisions(fixture).isEmpty, "nothing written, nothing decided")
        let session = try fixture.session(of: project)
        let outcome = try export.write(project.id, as: .markdown, access: .session(session), to: folder + "/intake.md")
        #expect(outcome.decision == .allow)
        let written = try String(contentsOfFile: folder + "/intake.md", encoding: .utf8)
        #expect(written.contains("S: slept badly; reach her at jane.doe@example.com"), "the owner's export is as written: \(written)")
        #expect(Self.decisions(fixture).last?["session"] == session.idString)
    }

    @Test("what the leak guard finds is redacted in the file, never written as it was; the record counts it")
    func redacted() throws {
        let fixture = try WritingFixture()
        let project = try Self.harbour(fixture, register: .general, text: "Reach Jane at jane.doe@example.com today.")
        let path = try Self.folder(fixture) + "/post.md"
        let outcome = try ProjectExport(vault: fixture.unlocked).write(project.id, as: .markdown, access: .vault, to: path)
        #expect(outcome.decision == .redact && outcome.written && !outcome.egress.findings.isEmpty)
        let written = try String(contentsOfFile: path, encoding: .utf8)
        #expect(written.contains("Reach Jane at [EMAIL] today.") && !written.contains("jane.doe"), "\(written)")
        let decision = try #require(Self.decisions(fixture).last)
        #expect(decision["decision"] == "redact" && decision["findings"]?.contains("=1") == true, "\(decision)")
    }

    @Test("refused by the compartment's policy: no file, no temporary file, and a stream's sink is never called")
    func refused() throws {
        let fixture = try WritingFixture()
        let project = try Self.harbour(fixture)
        let policy = EgressPolicy(compartmentRules: [project.compartment.id: EgressRule(destinations: [.vault], whenFound: .refuse)])
        let export = try ProjectExport(vault: fixture.unlocked, funnel: try EgressFunnel(vault: fixture.unlocked, policy: policy))
        let folder = try Self.folder(fixture)
        let outcome = try export.write(project.id, as: .markdown, access: .vault, to: folder + "/harbour.md")
        #expect(outcome.decision == .refuse && !outcome.written)
        #expect(try Self.files(in: folder).isEmpty, "neither the file nor its temporary file")
        var given = 0
        let streamed = try export.write(project.id, as: .markdown, access: .vault, to: "-") { _ in given += 1 }
        #expect(streamed.decision == .refuse && given == 0)
        #expect(Self.decisions(fixture).map { $0["decision"] } == ["refuse", "refuse"] && Self.decisions(fixture).last?["destination"] == "file:-")
    }
}
