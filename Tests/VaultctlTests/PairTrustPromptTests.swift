import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

/// `pair host|join` without `--trust` on a real terminal (issue 17, SECURITY.md §19.8): the trust
/// level is asked there, before anything is sent; the answer is what each side records (peers
/// list, one `peer.trust` entry); an answer that is neither 'mine' nor 'other' is asked again, and
/// three of them pair nothing.
@Suite(.serialized) struct PairTrustPromptTests {
    /// `pair host` on a pseudo-terminal (util-linux `script`), answering the trust question with
    /// `answers`; returns once it has printed its code and address. Bounded: the terminal is killed
    /// after `seconds`.
    static func startHostOnTerminal(_ vault: CLIVault, answers: [String], seconds: Int = 60) throws -> PairCommandTests.Host {
        let command = [CLI.binary, "pair", "host", "--address", "127.0.0.1:0", "--vault", vault.directory, "--passphrase-file", vault.passphraseFile]
        let quoted = command.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let typed = answers.map { "sleep 0.7; printf '%s\\n' '\($0)'" }.joined(separator: "; ")
        let pipeline = "(\(typed)) | timeout -k 5 \(seconds) script -qec \"\(quoted)\" /dev/null"
        let running = try CLI.start(["-c", pipeline], executable: "/bin/sh")
        for _ in 0..<600 {
            let shown = String(decoding: FileManager.default.contents(atPath: running.outputPath) ?? Data(), as: UTF8.self)
            let lines = shown.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            if let code = lines.first(where: { $0.hasPrefix("Pairing code: ") })?.dropFirst(14),
               let listening = lines.first(where: { $0.hasPrefix("Listening on ") }),
               let address = listening.dropFirst(13).split(separator: ";").first {
                return PairCommandTests.Host(running: running, code: String(code), address: String(address))
            }
            guard running.process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        kill(running.process.processIdentifier, SIGKILL)
        throw CLIError(message: "pair host on a terminal printed no code: \(running.result().stdout)")
    }

    static func trust(_ vault: CLIVault) throws -> [String?] {
        try #require(try PairCommandTests.json(try vault.run(["peers", "list", "--json"], unlock: false)) as? [[String: Any]]).map { $0["trust"] as? String }
    }

    /// The `peer.trust` entries of `vault`'s audit log, each as its details (level, at pairing).
    static func trustEntries(_ vault: CLIVault) throws -> [[String: Any]] {
        try #require(try PairCommandTests.json(try vault.run(["audit", "log", "--json", "--action", "peer.trust"])) as? [[String: Any]])
    }

    static func trustHash(_ entry: [String: Any]) throws -> String {
        try #require((entry["detail_hashes"] as? [String: Any])?["trust"] as? String, "\(entry)")
    }

    /// `value`'s keyed hash as `vault` records a `trust` detail (`vaultctl audit hash`).
    static func keyedHash(_ value: String, in vault: CLIVault) throws -> String {
        let hashed = try vault.run(["audit", "hash", "--field", "trust"], stdin: value + "\n")
        try #require(hashed.status == 0, "\(hashed.stderr)")
        return hashed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("asked on both terminals: the host answers 'mine', the joiner 'yes' (asked again) then 'other'; each side records its own answer and audits it once")
    func bothSidesAnswerOnTheirTerminal() throws {
        let desk = try CLIVault(), laptop = try CLIVault()
        let host = try Self.startHostOnTerminal(desk, answers: ["mine"])
        defer { if host.running.process.isRunning { kill(host.running.process.processIdentifier, SIGKILL) } }
        try laptop.write(host.code + "\n", to: laptop.root + "/code")
        let joined = try Terminal.run(["pair", "join", "--address", host.address, "--code-file", laptop.root + "/code",
                                       "--vault", laptop.directory, "--passphrase-file", laptop.passphraseFile],
                                      typing: ["yes", "other"], seconds: 60)
        let hosted = host.finish()
        #expect(joined.status == 0, "\(joined.stdout) \(joined.stderr)")
        #expect(hosted.status == 0, "\(hosted.stdout) \(hosted.stderr)")
        // The question was put on each terminal, twice on the joiner's (its first answer was neither).
        let question = "Is the other device yours ('mine') or someone else's ('other')?"
        #expect(hosted.stdout.components(separatedBy: question).count == 2, "\(hosted.stdout)")
        #expect(joined.stdout.components(separatedBy: question).count == 3, "\(joined.stdout)")
        #expect(hosted.stdout.contains("your own device") && joined.stdout.contains("someone else's device"))
        #expect(try Self.trust(desk) == ["mine"] && Self.trust(laptop) == ["other"])
        let deskEntries = try Self.trustEntries(desk), laptopEntries = try Self.trustEntries(laptop)
        #expect(deskEntries.count == 1 && laptopEntries.count == 1, "\(deskEntries) \(laptopEntries)")
        // The level is a keyed hash in the entry: each side's is its own answer's.
        #expect(try Self.trustHash(deskEntries[0]) == Self.keyedHash("mine", in: desk))
        #expect(try Self.trustHash(laptopEntries[0]) == Self.keyedHash("other", in: laptop))
    }

    @Test("three answers that are neither 'mine' nor 'other' on the terminal: exit 64, nothing paired, nothing recorded")
    func noValidAnswerPairsNothing() throws {
        let laptop = try CLIVault()
        try laptop.write("ABCDE-FGHIJ\n", to: laptop.root + "/code")
        // Nothing listens on port 1: had the question been skipped, the join would fail to connect instead.
        let joined = try Terminal.run(["pair", "join", "--address", "127.0.0.1:1", "--code-file", laptop.root + "/code",
                                       "--vault", laptop.directory, "--passphrase-file", laptop.passphraseFile],
                                      typing: ["yes", "family", "MINE!"], seconds: 60)
        #expect(joined.status == 64, "\(joined.status) \(joined.stdout)")
        #expect(joined.stdout.contains("no trust level chosen (answer 'mine' or 'other'); nothing was paired"), "\(joined.stdout)")
        #expect(!joined.stdout.contains("could not"), "nothing was sent: \(joined.stdout)")
        #expect(try Self.trust(laptop) == [])
        #expect(try Self.trustEntries(laptop).isEmpty)
    }

    @Test("three wrong answers on the host's terminal: exit 64, no code shown, nothing paired or recorded")
    func theHostsQuestionUnansweredShowsNoCode() throws {
        let desk = try CLIVault()
        let hosted = try Terminal.run(["pair", "host", "--address", "127.0.0.1:0", "--vault", desk.directory, "--passphrase-file", desk.passphraseFile],
                                      typing: ["no", "neither", "nobody"], seconds: 60)
        #expect(hosted.status == 64, "\(hosted.status) \(hosted.stdout)")
        #expect(!hosted.stdout.contains("Pairing code: "), "the question comes before the code: \(hosted.stdout)")
        #expect(try Self.trust(desk) == [])
        #expect(try Self.trustEntries(desk).isEmpty)
    }
}
