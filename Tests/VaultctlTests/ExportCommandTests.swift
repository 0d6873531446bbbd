import Foundation
import Testing
import TestSupport

/// vaultctl export: the project written out as Markdown or HTML, through the egress funnel (its
/// decision in the audit log without the text), a privileged project only inside a session, and
/// the leak guard's redaction applied to what is written.
@Suite("vaultctl export", .serialized)
struct ExportCommandTests {
    static let text = "# Arrival\n\nThe boat came in.\nIt rained.\n\n- rope\n- net\n\n> nobody waved\n"

    static func harbour(_ vault: CLIVault) throws {
        try WritingCommandTests.ok(vault, ["project", "create", "Harbour", "--register", "fiction"])
        try WritingCommandTests.ok(vault, ["doc", "add", "Harbour", "One", "--folder"])
        try WritingCommandTests.ok(vault, ["doc", "add", "Harbour", "Arrival", "--in", "One"])
        try WritingCommandTests.ok(vault, ["doc", "write", "Harbour", "Arrival"], stdin: text)
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test("md: the project byte for byte; --json names the decision and destination; the audit log has the decision, not the text")
    func markdown() throws {
        let vault = try CLIVault()
        try Self.harbour(vault)
        let path = vault.root + "/harbour.md"
        let summary = try Self.json(try WritingCommandTests.ok(vault, ["export", "Harbour", "--format", "md", "-o", path, "--json"]))
        #expect(summary["decision"] as? String == "allow" && summary["destination"] as? String == "file:" + path && summary["written"] as? Bool == true,
                "\(summary)")
        let expected = "# Harbour\n\n## One\n\n### Arrival\n\n# Arrival\n\nThe boat came in.\\\nIt rained.\n\n- rope\n- net\n\n> nobody waved\n"
        #expect(try String(contentsOfFile: path, encoding: .utf8) == expected)
        #expect(summary["size"] as? Int == expected.utf8.count)
        let egress = try #require(try JSONSerialization.jsonObject(with: Data(try WritingCommandTests.ok(vault, ["egress", "log", "--json"]).utf8))
                                  as? [[String: Any]])
        #expect(egress.map { $0["destination"] as? String } == ["file:" + path] && egress.first?["decision"] as? String == "allow", "\(egress)")
        let log = try WritingCommandTests.ok(vault, ["audit", "log", "--json"])
        #expect(log.contains("egress") && !log.contains("boat came in") && !log.contains("rope"), "the audit log never holds the exported text")
        let again = try vault.run(["export", "Harbour", "--format", "md", "-o", path])
        #expect(again.status == 73, "an existing file is not replaced without --force: \(again.stderr)")
    }

    @Test("html: a standalone page; a hostile project name and text are escaped")
    func html() throws {
        let vault = try CLIVault()
        let hostile = "<script>alert(1)</script>"
        try WritingCommandTests.ok(vault, ["project", "create", hostile, "--register", "fiction"])
        try WritingCommandTests.ok(vault, ["doc", "add", hostile, "A & B"])
        try WritingCommandTests.ok(vault, ["doc", "write", hostile, "A & B"], stdin: "<img src=x onerror=alert(2)>\n")
        let path = vault.root + "/page.html"
        try WritingCommandTests.ok(vault, ["export", hostile, "--format", "html", "-o", path])
        let page = try String(contentsOfFile: path, encoding: .utf8)
        #expect(page.hasPrefix("<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n"), "\(page)")
        #expect(page.contains("<title>&lt;script&gt;alert(1)&lt;/script&gt;</title>") && page.contains("<h2>A &amp; B</h2>")
                && page.contains("<p>&lt;img src=x onerror=alert(2)&gt;</p>"), "\(page)")
        #expect(!page.contains("<script") && !page.contains("<img"))
    }

    @Test("a privileged project: without --purpose exit 77; with it the file is written as it is, and the decision names the session")
    func privileged() throws {
        let vault = try CLIVault()
        let purpose = ["--purpose", "write up the session"]
        try WritingCommandTests.intake(vault, purpose: purpose, text: "S: slept badly; reach her at jane.doe@example.com\n")
        let path = vault.root + "/intake.md"
        let unread = try vault.run(["export", "Intake", "--format", "md", "-o", path])
        #expect(unread.status == 77 && unread.stderr.contains("privileged"), "\(unread.status) \(unread.stderr)")
        #expect(!FileManager.default.fileExists(atPath: path))
        let exported = try vault.run(["export", "Intake", "--format", "md", "-o", path, "--json"] + purpose)
        #expect(exported.status == 0, "\(exported.status) \(exported.stderr)")
        #expect(try Self.json(exported.stdout)["decision"] as? String == "allow")
        let written = try String(contentsOfFile: path, encoding: .utf8)
        #expect(written.contains("S: slept badly; reach her at jane.doe@example.com"), "the owner's export is as written: \(written)")
        let egress = try WritingCommandTests.ok(vault, ["egress", "log", "--json"])
        let decisions = try #require(try JSONSerialization.jsonObject(with: Data(egress.utf8)) as? [[String: Any]])
        let session = try #require(decisions.last?["session"] as? String)
        #expect(decisions.last?["decision"] as? String == "allow" && !egress.contains("slept badly"), "\(egress)")
        let log = try WritingCommandTests.ok(vault, ["audit", "log", "--json"])
        #expect(log.contains(session), "the session is the one the audit log started for the export: \(log)")
    }

    @Test("what the leak guard finds is redacted in the file (exit 3), never written as it was")
    func redacted() throws {
        let vault = try CLIVault()
        try WritingCommandTests.ok(vault, ["project", "create", "Blog", "--register", "general"])
        try WritingCommandTests.ok(vault, ["doc", "add", "Blog", "Post"])
        try WritingCommandTests.ok(vault, ["doc", "write", "Blog", "Post"], stdin: "Reach Jane at jane.doe@example.com today.\n")
        let path = vault.root + "/post.md"
        let result = try vault.run(["export", "Blog", "--format", "md", "-o", path])
        #expect(result.status == 3 && result.stdout.contains("redacted"), "\(result.status) \(result.stderr)")
        let written = try String(contentsOfFile: path, encoding: .utf8)
        #expect(written.contains("[EMAIL]") && !written.contains("jane.doe"), "\(written)")
    }

    @Test("an unknown format and a missing -o are usage errors (64)")
    func usage() throws {
        let vault = try CLIVault()
        try Self.harbour(vault)
        let unknown = try vault.run(["export", "Harbour", "--format", "rtf", "-o", vault.root + "/x.rtf"])
        #expect(unknown.status == 64 && unknown.stderr.contains("unknown format 'rtf'"), "\(unknown.stderr)")
        #expect(try vault.run(["export", "Harbour", "--format", "md"]).status == 64)
    }
}

/// docx through the real pandoc, pdf through the real pandoc and groff, when this machine has them.
@Suite("vaultctl export through pandoc", .serialized)
struct ExportPandocTests {
    static var pandoc: String? { installed("pandoc") }

    @Test("docx: a Word file (a zip) whose text, read back by pandoc, is the project's")
    func docx() throws {
        guard let pandoc = Self.pandoc else {
            print("SKIPPED ExportPandocTests.docx: pandoc is not installed ('apt-get install pandoc')")
            return
        }
        let vault = try CLIVault()
        try ExportCommandTests.harbour(vault)
        let path = vault.root + "/harbour.docx"
        try WritingCommandTests.ok(vault, ["export", "Harbour", "--format", "docx", "-o", path])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(bytes.prefix(2) == Data("PK".utf8), "a docx is a zip")
        let text = try Self.output(of: pandoc, ["--from", "docx", "--to", "plain", path])
        #expect(text.contains("Harbour") && text.contains("The boat came in.") && text.contains("nobody waved"), "\(text)")
    }

    @Test("pdf: pandoc to ms, then groff's PDF device, through pipes only: the text reads back with pdftotext, and no temporary file is left")
    func pdf() throws {
        guard Self.pandoc != nil, let pdftotext = Self.installed("pdftotext"), Self.installed("gropdf") != nil else {
            print("SKIPPED ExportPandocTests.pdf: needs pandoc, groff and poppler-utils ('apt-get install pandoc groff poppler-utils')")
            return
        }
        let vault = try CLIVault()
        try ExportCommandTests.harbour(vault)
        let temporary = vault.root + "/tmp"
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = temporary
        let path = vault.root + "/harbour.pdf"
        let result = try CLI.run(["export", "Harbour", "--format", "pdf", "-o", path, "--vault", vault.directory,
                                  "--passphrase-file", vault.passphraseFile], environment: environment)
        #expect(result.status == 0, "\(result.status) \(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)).prefix(5) == Data("%PDF-".utf8))
        let text = try Self.output(of: pdftotext, [path, "-"])
        #expect(text.contains("Harbour") && text.contains("The boat came in.") && text.contains("nobody waved"), "\(text)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary).isEmpty, "nothing was written to the temporary folder")
    }

    @Test("pdf without groff: exit 1 naming what to install, nothing written, nothing decided")
    func pdfWithoutGroff() throws {
        guard let pandoc = Self.pandoc else {
            print("SKIPPED ExportPandocTests.pdfWithoutGroff: pandoc is not installed ('apt-get install pandoc')")
            return
        }
        let vault = try CLIVault()
        try ExportCommandTests.harbour(vault)
        let onlyPandoc = vault.root + "/bin"
        try FileManager.default.createDirectory(atPath: onlyPandoc, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: onlyPandoc + "/pandoc", withDestinationPath: pandoc)
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = onlyPandoc
        let path = vault.root + "/harbour.pdf"
        let result = try CLI.run(["export", "Harbour", "--format", "pdf", "-o", path, "--vault", vault.directory,
                                  "--passphrase-file", vault.passphraseFile], environment: environment)
        #expect(result.status == 1 && result.stderr.contains("needs groff") && result.stderr.contains("apt-get install groff"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(!(try WritingCommandTests.ok(vault, ["egress", "log", "--json"])).contains("export:"))
    }

    static func installed(_ name: String) -> String? {
        ["/usr/bin/\(name)", "/usr/local/bin/\(name)"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// What `program` prints, run as the tests run vaultctl (`CLI.start` takes any executable).
    static func output(of program: String, _ arguments: [String]) throws -> String {
        let running = try CLI.start(arguments, executable: program)
        running.process.waitUntilExit()
        return running.result().stdout
    }
}
