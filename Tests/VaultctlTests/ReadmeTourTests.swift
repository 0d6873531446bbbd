import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// The README's tour, read from README.md itself, so the test fails when the README drifts from the
/// program: the one-machine block runs line by line as written (each line must exit 0, or the code its
/// comment names as "(exit N)"); the two-device block is checked against the help (every command it
/// names exists, every option it uses is one that command takes).
@Suite("README: the tour runs as written", .serialized)
struct ReadmeTourTests {
    static let readme: String = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return (try? String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)) ?? ""
    }()

    /// The ```sh blocks of the tour section, in order.
    static func tourBlocks() throws -> [[String]] {
        let section = try #require(readme.components(separatedBy: "\n## A short tour of vaultctl\n").dropFirst().first, "README has no tour")
        let body = section.components(separatedBy: "\n## ").first ?? section
        return body.components(separatedBy: "```sh\n").dropFirst().map { chunk in
            (chunk.components(separatedBy: "\n```").first ?? "").components(separatedBy: "\n")
        }
    }

    /// The lines that are commands: not blank, not a comment (a comment continues the line above).
    static func commands(_ block: [String]) -> [(number: Int, text: String)] {
        block.enumerated().compactMap { index, line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            return trimmed.isEmpty || trimmed.hasPrefix("#") ? nil : (index + 1, line)
        }
    }

    /// The exit code a line's comment promises ("... (exit 77)"), else 0.
    static func expectedExit(_ line: String) -> Int32 {
        guard let comment = line.range(of: " # "),
              let match = line[comment.upperBound...].range(of: #"\(exit [0-9]+\)"#, options: .regularExpression) else { return 0 }
        return Int32(line[match].dropFirst(6).dropLast()) ?? -1
    }

    /// The commands whose help lists `option`, from the overview's list.
    static func commands(taking option: String) throws -> [String] {
        try HelpTests.listedCommands().filter { command in
            let help = (try? CLI.run(command.split(separator: " ").map(String.init) + ["--help"]).stdout) ?? ""
            return help.contains("\n  \(option) ")
        }
    }

    /// `vaultctl` as the README's reader runs it, but with the passphrase from the documented
    /// `--passphrase-file` instead of the terminal (and `--new-passphrase-file` for passwd); a
    /// command given another credential gets none added. `init` also gets the KDF floor, so the
    /// tour's forty unlocks take seconds on a loaded machine.
    static func wrapper(passphraseFile: String) throws -> String {
        let taking = try commands(taking: "--passphrase-file")
        let twoWords = taking.filter { $0.contains(" ") }.map { "\"\($0)\"" }.joined(separator: "|")
        let oneWord = taking.filter { !$0.contains(" ") && $0 != "passwd" && $0 != "init" }.joined(separator: "|")
        return """
            #!/bin/sh
            real='\(CLI.binary)'
            pp='\(passphraseFile)'
            case " $* " in *" --recovery-key-file "*|*" --share-file "*) exec "$real" "$@";; esac
            case "$1 $2" in
              \(twoWords)) exec "$real" "$@" --passphrase-file "$pp";;
            esac
            case "$1" in
              init) exec "$real" "$@" --passphrase-file "$pp" \(CLI.fastKDF.joined(separator: " "));;
              passwd) exec "$real" "$@" --passphrase-file "$pp" --new-passphrase-file "$pp";;
              \(oneWord)) exec "$real" "$@" --passphrase-file "$pp";;
            esac
            exec "$real" "$@"

            """
    }

    /// The block as a script that stops at the first line whose exit is not the one promised.
    static func script(_ block: [String]) -> String {
        commands(block).map { number, line in
            let expected = expectedExit(line)
            let quoted = line.replacingOccurrences(of: "'", with: "'\\''")
            return "\(line)\nrc=$?; if [ $rc -ne \(expected) ]; then printf 'README tour line %s exited %s, not \(expected): %s\\n' \(number) $rc '\(quoted)' >&2; exit 1; fi\n"
        }.joined()
    }

    @Test("the one-machine tour runs top to bottom as README.md writes it")
    func oneMachineTour() throws {
        let blocks = try Self.tourBlocks()
        let tour = try #require(blocks.first)
        #expect(Self.commands(tour).count >= 40, "the tour lost its commands: \(tour)")
        let fixture = try CLIVault(create: false)
        let home = fixture.root + "/home", bin = fixture.root + "/bin"
        for folder in [home, bin] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        // The reader's own files (the tour says to bring them).
        FileManager.default.createFile(atPath: home + "/draft.pdf", contents: Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }))
        FileManager.default.createFile(atPath: home + "/chart.pdf", contents: Data("%PDF-1.4 referral chart\n".utf8))
        try fixture.write("The spring newsletter: opening hours and the new waiting room.\n", to: home + "/draft.txt")
        try fixture.write(try Self.wrapper(passphraseFile: fixture.passphraseFile), to: bin + "/vaultctl")
        chmod(bin + "/vaultctl", 0o755)
        try fixture.write("cd '\(home)' || exit 1\n" + Self.script(tour), to: fixture.root + "/tour.sh")

        let environment = ["PATH": bin + ":/usr/bin:/bin", "HOME": home, "LANG": "C.UTF-8"]
        // A daemon left by a failed line is stopped whatever happens.
        defer { _ = try? CLI.run(["serve", "--stop", "--vault", home + "/clinic-vault"]) }
        let running = try CLI.start([fixture.root + "/tour.sh"], environment: environment, executable: "/bin/sh")
        running.process.waitUntilExit()
        let ran = running.result()
        #expect(ran.status == 0, "\(ran.stderr)")
        #expect(FileManager.default.contents(atPath: home + "/chart-session.pdf") == Data("%PDF-1.4 referral chart\n".utf8),
                "the tour's daemon-session read gave the chart back")
        #expect(FileManager.default.contents(atPath: home + "/draft-opened.pdf")?.count == 10_000)
    }

    @Test("the two-device tour names only commands that exist, with options each of them takes")
    func twoDeviceTourMatchesTheHelp() throws {
        let blocks = try Self.tourBlocks()
        #expect(blocks.count == 2, "the tour has a one-machine block and a two-device block")
        let block = try #require(blocks.last)
        let listed = try HelpTests.listedCommands().sorted { $0.count > $1.count }
        #expect(Self.commands(block).count >= 10)
        for (number, line) in Self.commands(block) {
            let code = line.components(separatedBy: " # ").first ?? line
            let words = code.split(separator: " ").map(String.init)
            #expect(words.first == "vaultctl", "line \(number): \(line)")
            let rest = words.dropFirst().joined(separator: " ")
            let command = try #require(listed.first { rest == $0 || rest.hasPrefix($0 + " ") }, "line \(number) names no command: \(line)")
            let help = try CLI.run(command.split(separator: " ").map(String.init) + ["--help"]).stdout
            for option in words where option.hasPrefix("--") {
                #expect(help.contains("\n  \(option) ") || help.contains("\n  \(option)\n"), "line \(number): \(command) takes no \(option)")
            }
        }
    }
}
