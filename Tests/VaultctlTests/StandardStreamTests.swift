import Foundation
import Testing

/// `-` for standard input and output where a file is taken, and no binary written to a terminal.
@Suite("vaultctl: - for stdin and stdout, and no plaintext to a terminal")
struct StandardStreamTests {
    static func shell(_ script: String) throws -> CLI.Result {
        let running = try CLI.start(["-c", script], executable: "/bin/sh")
        running.process.waitUntilExit()
        return running.result()
    }

    static func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    @Test("open - and inspect - read a bundle from a pipe and from a redirect")
    func bundleFromStandardInput() throws {
        let vault = try CLIVault()
        #expect(try vault.run(["compartment", "create", "Memos", "--register", "general"]).status == 0)
        let plain = vault.root + "/memo.txt", bundle = vault.root + "/memo.vbundle"
        try vault.write("the memo, sealed and piped\n", to: plain)
        let sealed = try vault.run(["seal", "--compartment", "Memos", plain, "-o", bundle])
        #expect(sealed.status == 0, "\(sealed.stderr)")
        let common = "--vault \(Self.quoted(vault.directory)) --passphrase-file \(Self.quoted(vault.passphraseFile))"
        let binary = Self.quoted(CLI.binary)
        let piped = try Self.shell("cat \(Self.quoted(bundle)) | \(binary) open - \(common) -o -")
        #expect(piped.status == 0 && piped.stdout == "the memo, sealed and piped\n", "\(piped.stdout) \(piped.stderr)")
        let redirected = try Self.shell("\(binary) open - \(common) < \(Self.quoted(bundle))")
        #expect(redirected.status == 0 && redirected.stdout == "the memo, sealed and piped\n", "\(redirected.stderr)")
        let inspected = try Self.shell("cat \(Self.quoted(bundle)) | \(binary) inspect - --json")
        #expect(inspected.status == 0 && inspected.stdout.contains("\"plaintext_length\" : 27"), "\(inspected.stdout) \(inspected.stderr)")
        let garbage = try Self.shell("printf 'not a bundle' | \(binary) inspect -")
        #expect(garbage.status == 65, "a pipe of garbage is bad data, not a crash: \(garbage.stderr)")
    }

    @Test("open and get refuse to write plaintext to a terminal (exit 64, nothing unlocked), as seal does")
    func noPlaintextToATerminal() throws {
        let vault = try CLIVault()
        #expect(try vault.run(["compartment", "create", "Memos", "--register", "general"]).status == 0)
        let plain = vault.root + "/memo.txt", bundle = vault.root + "/memo.vbundle"
        try vault.write("secret memo\n", to: plain)
        #expect(try vault.run(["seal", "--compartment", "Memos", plain, "-o", bundle]).status == 0)
        let stored = try vault.run(["put", "--compartment", "Memos", plain]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        for arguments in [["open", bundle], ["get", stored]] {
            let result = try Terminal.run(arguments + ["--vault", vault.directory, "--passphrase-file", vault.passphraseFile], typing: [])
            #expect(result.status == 64, "\(arguments[0]): \(result.stdout)")
            #expect(result.stdout.contains("refusing to write the plaintext to a terminal"), "\(result.stdout)")
            #expect(!result.stdout.contains("secret memo"))
        }
    }

    @Test("egress check -o - writes only the released payload to stdout; the report goes to stderr")
    func egressPayloadAloneOnStdout() throws {
        let vault = try CLIVault()
        #expect(try vault.run(["compartment", "create", "blog", "--register", "general"]).status == 0)
        let payload = "A post about spring planting, nothing private.\n"
        let allowed = try vault.run(["egress", "check", "--to", "model:summarizer", "--from", "blog", "-", "-o", "-"], stdin: payload)
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(allowed.stdout == payload, "stdout carries the payload and nothing else: \(allowed.stdout)")
        #expect(allowed.stderr.contains("Decision: allow"), "\(allowed.stderr)")
        let redacted = try vault.run(["egress", "check", "--to", "model:summarizer", "--from", "blog", "-", "-o", "-", "--json"],
                                     stdin: EgressCommandTests.leaky)
        #expect(redacted.status == 3)
        #expect(redacted.stdout == "Reach Jane at [EMAIL], SSN [SSN], about the visit.\n", "\(redacted.stdout)")
        #expect(redacted.stderr.contains("\"decision\" : \"redact\""), "\(redacted.stderr)")
    }
}

@Suite("vaultctl passwd: its prompts")
struct PasswdPromptTests {
    @Test("passwd asks for the 'Current passphrase' first, then the new one twice")
    func currentPassphrasePrompt() throws {
        let vault = try CLIVault()
        let result = try Terminal.run(["passwd", "--vault", vault.directory],
                                      typing: [CLIVault.passphrase, "a longer passphrase for a new year", "a longer passphrase for a new year"])
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout.contains("Current passphrase: "), "\(result.stdout)")
        #expect(result.stdout.range(of: "Current passphrase: ")?.lowerBound ?? result.stdout.endIndex
                < result.stdout.range(of: "New passphrase: ")?.lowerBound ?? result.stdout.startIndex, "\(result.stdout)")
    }
}
