import CryptoVault
import Foundation
import Registers
import Testing
import TestSupport

/// Issue 15: "Every label the CLI prints ... resolves terms through the register", "Labels use the
/// project's vocabulary". Every writing command, its ordinary answer and its common refusals, is run
/// on a healthcare project and on a legal one, and nothing it says to a person (stdout, stderr, the
/// `label`s of --json) may hold a word of the model or of fiction that the register renames: no
/// "scene", "document", "project" or "branch" to a clinician; no "folder", "chapter" or "project"
/// to a lawyer. Quoted text is left out (a title the writer chose, or a command such as
/// 'vaultctl branch list', whose name is the same in every register), and so are --json's keys and
/// machine values ("kind": "scene"), which scripts read.
@Suite("vaultctl: every writing command speaks the register's words", .serialized)
struct RegisterWordsSweepTests {
    /// The concepts whose words are checked. The fiction words "character" and "place" are also
    /// ordinary English ("500 characters changed", "changed the same place"), so a sweep for them
    /// would fail on sentences that do not name the concept; an entry's label is checked instead.
    static let checked: [TermKey] = [.project, .scene, .chapter, .plotBeat, .bible, .branch]

    /// The model's own names of the concepts, beside the fiction words (the store's messages say these).
    static let modelWords: [TermKey: [String]] = [
        .project: ["project", "projects"], .scene: ["document", "documents"], .chapter: ["folder", "folders"],
        .branch: ["proposal", "proposals"],
    ]

    /// The words `register` must never print: fiction's and the model's for each concept it calls otherwise.
    static func forbidden(in register: Register) -> Set<String> {
        let own = Lexicon(register), fiction = Lexicon(.fiction)
        var words: Set<String> = []
        for key in checked {
            let said = Set([own.singular(key), own.plural(key)].compactMap { $0 })
            let other = [fiction.singular(key), fiction.plural(key)].compactMap { $0 } + (modelWords[key] ?? [])
            words.formUnion(other.filter { !said.contains($0) })
        }
        return words
    }

    /// `text` without its quoted spans: a quote opens at a ' that does not follow a letter or digit,
    /// and closes at one that no letter or digit follows (an apostrophe in "chart's" is neither).
    static func unquoted(_ text: String) -> String {
        text.replacingOccurrences(of: #"(?<![\p{L}\p{N}])'[^'\n]*'(?![\p{L}\p{N}])"#, with: "''", options: .regularExpression)
    }

    /// The forbidden words (whole words, any case) in `text`.
    static func found(_ words: Set<String>, in text: String) -> [String] {
        let plain = unquoted(text).lowercased()
        return words.sorted().filter { word in
            plain.range(of: #"(?<![\p{L}])"# + NSRegularExpression.escapedPattern(for: word) + #"(?![\p{L}])"#, options: .regularExpression) != nil
        }
    }

    /// Every value of a "label" key in a --json answer, at any depth.
    static func labels(_ object: Any) -> [String] {
        if let dictionary = object as? [String: Any] {
            return dictionary.flatMap { key, value in key == "label" ? [value as? String ?? ""] : labels(value) }
        }
        if let array = object as? [Any] { return array.flatMap(labels) }
        return []
    }

    /// A vault with project `name` (and a second, `other`) of `register`, where every command's
    /// words are collected and checked.
    final class Sweep {
        let vault = try! CLIVault()
        let register: Register
        let name: String, other: String
        let purpose = ["--purpose", "sweep the words"]
        let forbidden: Set<String>
        private(set) var problems: [String] = []
        private(set) var commands = 0

        init(_ register: Register, name: String, other: String) {
            self.register = register
            self.name = name
            self.other = other
            forbidden = RegisterWordsSweepTests.forbidden(in: register)
        }

        /// Runs `arguments` (with the purpose, unless told not to), expects exit `status`, and records
        /// every forbidden word its output holds. Gives back stdout.
        @discardableResult
        func run(_ arguments: [String], stdin: String? = nil, status: Int32 = 0, purpose: Bool = true, vaultless: Bool = false) throws -> String {
            // A command that reads no vault (template list) is given none.
            let result = vaultless ? try CLI.run(arguments) : try vault.run(arguments + (purpose ? self.purpose : []), stdin: stdin)
            commands += 1
            let said = arguments.joined(separator: " ")
            if result.status != status { problems.append("\(said): exit \(result.status), not \(status): \(result.stderr)") }
            // --json's stdout is for scripts (its keys and values stay the model's) except the labels
            // meant for people; that holds for a refusal's JSON too (adopt's "conflicts").
            var human = result.stderr
            if arguments.contains("--json"), !result.stdout.isEmpty {
                guard let object = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8), options: [.fragmentsAllowed]) else {
                    problems.append("\(said): --json printed no JSON: \(result.stdout)")
                    return result.stdout
                }
                human += "\n" + RegisterWordsSweepTests.labels(object).joined(separator: "\n")
            } else {
                human += "\n" + result.stdout
            }
            let words = RegisterWordsSweepTests.found(forbidden, in: human)
            if !words.isEmpty { problems.append("\(said) said \(words): \(human)") }
            return result.stdout
        }

        /// `run` with --json, and the answer parsed (NSNull when there is none: the run recorded why).
        func json(_ arguments: [String], stdin: String? = nil, purpose: Bool = true, vaultless: Bool = false) throws -> Any {
            let out = try run(arguments + ["--json"], stdin: stdin, purpose: purpose, vaultless: vaultless)
            return (try? JSONSerialization.jsonObject(with: Data(out.utf8), options: [.fragmentsAllowed])) ?? NSNull()
        }

        func id(_ arguments: [String], stdin: String? = nil, purpose: Bool = true) throws -> String {
            try #require((try json(arguments, stdin: stdin, purpose: purpose) as? [String: Any])?["id"] as? String)
        }
    }

    /// Text with no word of any register's table, long enough (over 500 characters) that one write
    /// takes an automatic snapshot.
    static let longText = (1...12).map { "Line \($0): slept badly, ate little, walked in the garden each morning." }.joined(separator: "\n\n") + "\n"

    func sweep(_ register: Register, name: String, other: String, character: String) throws {
        let s = Sweep(register, name: name, other: other)
        let p = name
        // Said even when a step below cannot go on (a #require), so the words found so far are seen.
        defer { #expect(s.problems.isEmpty, "\(register.rawValue): \(s.problems.count) problem(s):\n\(s.problems.joined(separator: "\n\n"))") }
        // Projects.
        try s.run(["project", "create", p, "--register", register.rawValue], purpose: false)
        let projectID = try s.id(["project", "show", p])
        try s.run(["project", "create", other, "--register", register.rawValue, "--json"], purpose: false)
        try s.run(["project", "list"])
        try s.run(["project", "list", "--json"])
        try s.run(["project", "show", p])
        try s.run(["project", "rename", p, p + " renamed"])
        try s.run(["project", "rename", p + " renamed", p])
        try s.run(["project", "archive", p])
        try s.run(["project", "archive", p, "--undo"])
        // Documents and folders.
        try s.run(["doc", "add", p, "Visits", "--folder"])
        try s.json(["doc", "add", p, "First visit", "--in", "Visits"])
        try s.run(["doc", "add", p, "Second visit"])
        try s.run(["doc", "list", p])
        try s.run(["doc", "list", p, "--json"])
        try s.run(["doc", "write", p, "First visit"], stdin: Self.longText)
        try s.run(["doc", "write", p, "Second visit"], stdin: "Called back on Monday.\n")
        try s.run(["doc", "write", p, "First visit"], stdin: Self.longText + "Seen again.\n")
        try s.run(["doc", "show", p, "First visit"])
        try s.run(["doc", "show", p, "First visit", "--json"])
        try s.run(["doc", "move", p, "Second visit", "--in", "Visits"])
        try s.run(["doc", "move", p, "Second visit", "--top"])
        try s.run(["doc", "import", p, "Imported", "--format", "txt"], stdin: "Brought in from a file.\n")
        try s.run(["doc", "import", p, "Imported twice", "--format", "md", "--json"], stdin: "# Heading\n\nBody.\n")
        try s.run(["project", "show", p])
        // Versions.
        try s.run(["history", p, "First visit"])
        try s.run(["snapshot", "create", p, "First visit", "--title", "Before review"])
        try s.run(["snapshot", "list", p, "First visit"])
        try s.run(["snapshot", "show", p, "First visit", "1"])
        try s.run(["snapshot", "diff", p, "First visit", "1"])
        try s.run(["snapshot", "restore", p, "First visit", "1"])
        try s.run(["project", "snapshot", p])
        try s.run(["project", "versions", p])
        try s.run(["project", "restore", p, "1"])
        // Branches.
        try s.run(["branch", "create", p, "First visit"], stdin: "Line 1: slept well.\n")
        try s.run(["branch", "list", p, "First visit"])
        try s.run(["branch", "list", p, "First visit", "--json"])
        try s.run(["branch", "show", p, "First visit", "1"])
        try s.run(["branch", "diff", p, "First visit", "1"])
        try s.run(["branch", "adopt", p, "First visit", "1"])
        try s.run(["branch", "revert", p, "First visit", "1"])
        try s.run(["branch", "create", p, "First visit"], stdin: "Line 1: slept a little.\n")
        try s.run(["branch", "discard", p, "First visit", "2"])
        try s.run(["conflicts", p])
        // Search, templates, snippets, entries, export, activity.
        try s.run(["search", p, "garden"])
        try s.run(["search", p, "garden", "--json"])
        let template = try #require((try s.json(["template", "list", "--register", register.rawValue], vaultless: true) as? [[String: Any]])?.first?["id"] as? String)
        try s.run(["template", "use", p, template, "--title", "From the template"])
        let snippet = try #require((try s.json(["snippet", "list", "--register", register.rawValue], vaultless: true) as? [[String: Any]])?.first?["id"] as? String)
        try s.run(["snippet", "insert", p, "Second visit", snippet])
        try s.run(["entry", "add", p, "Dana", "--kind", "character"])
        try s.run(["entry", "list", p])
        let entries = try #require(try s.json(["entry", "list", p]) as? [[String: Any]])
        #expect(entries.map { $0["label"] as? String } == [character], "an entry's label is the register's word: \(entries)")
        try s.run(["entry", "show", p, "Dana"])
        try s.run(["entry", "rm", p, "Dana", "--yes"])
        try s.run(["export", p, "--format", "md", "-o", s.vault.root + "/out.md"])
        try s.run(["activity", p])
        try s.run(["doc", "rm", p, "Imported", "--yes"])

        // The common refusals.
        let foreign = try s.id(["doc", "add", other, "Elsewhere"])
        try s.run(["doc", "list", projectID], status: 77, purpose: false)
        try s.run(["doc", "show", p, "Missing"], status: 66)
        try s.run(["doc", "show", p, foreign], status: 64)
        try s.run(["doc", "move", p, "Visits", "--in", "Visits"], status: 64)
        try s.run(["doc", "move", p, "First visit", "--top", "--before", foreign], status: 64)
        try s.run(["doc", "write", p, "Visits"], stdin: "text\n", status: 64)
        try s.run(["doc", "rm", p, "Visits", "--yes"], status: 64)
        try s.run(["snapshot", "show", p, "First visit", "99"], status: 66)
        try s.run(["project", "restore", p, "99"], status: 66)
        try s.run(["branch", "show", p, "First visit", "99"], status: 66)
        try s.run(["branch", "adopt", p, "First visit", "2"], status: 64)
        try s.run(["entry", "show", p, "Nobody"], status: 66)
        try s.run(["doc", "add", p, "Plan"])
        try s.run(["doc", "write", p, "Plan"], stdin: "Walk daily.\n")
        try s.run(["branch", "create", p, "Plan"], stdin: "Walk daily at noon.\n")
        try s.run(["doc", "write", p, "Plan"], stdin: "Walk twice daily.\n")
        try s.run(["branch", "adopt", p, "Plan", "1"], status: 1)
        try s.run(["branch", "adopt", p, "Plan", "1", "--json"], status: 1)

        #expect(s.commands > 70)
    }

    @Test("healthcare: charts, notes, folders and suggested changes; never a project, document, scene or branch")
    func healthcare() throws {
        #expect(Self.forbidden(in: .healthcare).isSuperset(of: ["project", "document", "scene", "chapter", "branch", "proposal", "manuscript"]))
        try sweep(.healthcare, name: "Alder", other: "Rowan", character: "person")
    }

    @Test("legal: matters, documents, sections and redlines; never a project, folder, chapter or branch")
    func legal() throws {
        #expect(Self.forbidden(in: .legal).isSuperset(of: ["project", "folder", "chapter", "branch", "proposal", "scene", "manuscript"]))
        try sweep(.legal, name: "Alder", other: "Rowan", character: "party")
    }

    @Test("the sweep's own check finds a renamed word outside quotes and none inside them")
    func theCheckCanFail() {
        let words = Self.forbidden(in: .healthcare)
        #expect(Self.found(words, in: "no branch of the document") == ["branch", "document"])
        #expect(Self.found(words, in: "no suggested change 'Scene 2' ('vaultctl branch list' shows them); the chart's notes").isEmpty)
    }
}
