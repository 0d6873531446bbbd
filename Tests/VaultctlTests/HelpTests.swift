import Foundation
import Testing

/// The help is generated from the option declarations: these walk all of it as a user would read it.
@Suite("vaultctl: help, global options and --version")
struct HelpTests {
    /// Every command the overview lists, read from the overview itself (so a new command is walked too).
    static func listedCommands() throws -> [String] {
        let overview = try CLI.run(["--help"]).stdout
        let lines = overview.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex(of: "Commands:")) + 1
        let block = lines[start...].prefix { !$0.isEmpty }
        // "  audit check-consistency  check an RFC..." : the name ends at the first run of two spaces.
        return block.compactMap { line in line.dropFirst(2).components(separatedBy: "  ").first }
    }

    @Test("the overview lists every command in full, each answering 'help CMD' and '--help' with the same text")
    func everyCommandHasHelp() throws {
        let commands = try Self.listedCommands()
        #expect(commands.count >= 49, "\(commands)")
        #expect(commands.contains("audit check-consistency"), "the overview cuts a long name: \(commands)")
        for command in commands {
            let words = command.split(separator: " ").map(String.init)
            let viaHelp = try CLI.run(["help"] + words)
            let viaFlag = try CLI.run(words + ["--help"])
            #expect(viaHelp.status == 0 && viaFlag.status == 0, "\(command): \(viaHelp.stderr) \(viaFlag.stderr)")
            #expect(viaHelp.stdout == viaFlag.stdout, "\(command)")
            let text = viaHelp.stdout
            #expect(text.hasPrefix("Usage: vaultctl \(command) ") || text.hasPrefix("Usage: vaultctl \(command)\n"), "\(command): \(text)")
            #expect(!text.contains("\\("), "\(command) prints a literal interpolation: \(text)")
            #expect(!text.contains("TODO"), "\(command)")
            let examples = try #require(text.components(separatedBy: "\nExamples:\n").last, "\(command) has no Examples section")
            #expect(text.contains("\nExamples:\n") && examples.contains("vaultctl \(command)"),
                    "\(command) has no example of itself: \(examples)")
            #expect(text.contains("\n  --help"), "\(command) lists the global options")
            for line in text.components(separatedBy: "\n") {
                #expect(line.count <= 100, "\(command): a help line is wider than 100 columns: '\(line)'")
            }
        }
    }

    @Test("every option a command's help lists is one its parser knows (an unknown one would say 'unknown option')")
    func listedOptionsAreAccepted() throws {
        for command in try Self.listedCommands() {
            let words = command.split(separator: " ").map(String.init)
            let text = try CLI.run(words + ["--help"]).stdout
            let options = text.components(separatedBy: "\n").compactMap { line -> String? in
                guard line.hasPrefix("  -") else { return nil }
                return line.dropFirst(2).split(separator: " ").first.map(String.init)
            }
            #expect(!options.isEmpty, "\(command)")
            for option in options where option != "--help" {
                // Given twice, a declared option is refused for that reason; an undeclared one as unknown.
                let result = try CLI.run(words + [option, "x", option, "x", "--vault", "/nonexistent-vaultctl-help-test"])
                #expect(!result.stderr.contains("unknown option \(option)"), "\(command) lists \(option) but refuses it: \(result.stderr)")
            }
        }
    }

    @Test("one name per concept in every command's help: a file written is -o (never --out or --output), a paired device --peer, an address --address (never --listen, --to, --with)")
    func oneNamePerConcept() throws {
        for command in try Self.listedCommands() {
            let words = command.split(separator: " ").map(String.init)
            let options = try CLI.run(words + ["--help"]).stdout.components(separatedBy: "\n").filter { $0.hasPrefix("  -") }
                .map { $0.dropFirst(2).split(separator: " ").prefix(2).map(String.init) }
            for option in options {
                let (name, value) = (option[0], option.count > 1 ? option[1] : "")
                #expect(!["--out", "--output", "--listen", "--with"].contains(name), "\(command) lists \(name)")
                if value == "PEER" { #expect(name == "--peer", "\(command) names a paired device \(name)") }
                if value == "OUT" { #expect(name == "-o", "\(command) names its output file \(name)") }
                // The one other address is where LAN announcements are heard, which is not a peer's.
                if value == "ADDR:PORT" { #expect(["--address", "--announcements"].contains(name), "\(command) names an address \(name)") }
            }
        }
        for command in [["backup"], ["open"], ["get"], ["seal"], ["audit", "export"], ["egress", "check"]] {
            let help = try CLI.run(command + ["--help"]).stdout
            #expect(help.contains("\n  -o OUT"), "\(command.joined(separator: " ")) writes a file with -o: \(help)")
        }
    }

    @Test("global options go before the command too: '--vault D status' is 'status --vault D'")
    func globalOptionsBeforeTheCommand() throws {
        let fixture = try CLIVault()
        let before = try CLI.run(["--vault", fixture.directory, "--json", "status"])
        let after = try CLI.run(["status", "--json", "--vault", fixture.directory])
        #expect(before.status == 0, "\(before.stderr)")
        #expect(before.stdout == after.stdout && before.stdout.contains("\"vault_id\""))
        let equals = try CLI.run(["--vault=\(fixture.directory)", "compartment", "list", "--passphrase-file", fixture.passphraseFile])
        #expect(equals.status == 0, "\(equals.stderr)")
        let twice = try CLI.run(["--vault", fixture.directory, "status", "--vault", fixture.directory])
        #expect(twice.status == 64 && twice.stderr.contains("--vault was given twice"), "\(twice.stderr)")
        let unknown = try CLI.run(["--frobnicate", "status"])
        #expect(unknown.status == 64 && unknown.stderr.contains("unknown option --frobnicate before the command"), "\(unknown.stderr)")
        let dangling = try CLI.run(["--vault"])
        #expect(dangling.status == 64 && dangling.stderr.contains("--vault needs a value"), "\(dangling.stderr)")
    }

    @Test("--version prints the version and exits 0; help for a command that does not exist is a usage error")
    func version() throws {
        let result = try CLI.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout.range(of: #"^vaultctl \d+\.\d+\.\d+\n$"#, options: .regularExpression) != nil, "\(result.stdout)")
        let missing = try CLI.run(["help", "frobnicate"])
        #expect(missing.status == 64 && missing.stderr.contains("no command 'frobnicate'"), "\(missing.stderr)")
        let overview = try CLI.run(["help"])
        #expect(overview.status == 0 && overview.stdout.contains("Commands:"))
    }

    @Test("--json is refused, not ignored, by a command that prints no JSON, saying why",
          arguments: [(["open", "x"], "it writes the file's bytes"), (["get", "x"], "it writes the file's bytes"), (["serve"], "it is the daemon"),
                      (["demo"], "it is a guided tour")])
    func jsonRefused(_ arguments: [String], reason: String) throws {
        let result = try CLI.run(arguments + ["--json"])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("\(arguments[0]) has no JSON output (\(reason)"), "\(result.stderr)")
    }
}
