import Foundation
import Testing
@testable import Writing

/// The three-way merge against the real `git merge-file -p --diff3` on 10,000 random triples.
/// The diff3 style is the one both can be compared in: it carries the base, and git holds it to
/// the "eager" merge level our merge implements (its default style also shrinks conflicts, which
/// a reader of a diff3 conflict does not need). Where the two outputs differ (the two diffs may align
/// repeated lines differently), ours must keep all three sides whole and git's must drop nothing
/// either: every line each side inserted, in its order, is in git's output.
@Suite struct GitMergeFileAgreementTests {
    static let tripleCount = 10_000

    /// Without git the comparison cannot run, and a run that passes without it would not say the
    /// 10,000 triples were never compared: it fails, naming what to install (scripts/install-deps
    /// installs git, as it does for MergeAgainstGitTests).
    @Test func agreesWithGitOrBothKeepEverySideOnTenThousandTriples() throws {
        try #require(GitMergeFile.isInstalled, "git is not installed at /usr/bin/git, so the merge was NOT compared with 'git merge-file' on 10,000 triples: scripts/install-deps installs it")
        var generator = SeededGenerator(seed: 0x5EED_0004)
        let triples = (0..<Self.tripleCount).map { _ in RandomTriple.make(&generator) }
        let gitResults = try GitMergeFile.run(triples)
        try #require(gitResults.count == triples.count)
        var agreed = 0
        for (triple, git) in zip(triples, gitResults) {
            let base = Line.split(triple.base), ours = Line.split(triple.ours), theirs = Line.split(triple.theirs)
            let result = try ThreeWayMerge.lines(base: triple.base, ours: triple.ours, theirs: triple.theirs)
            ThreeWayMergeTests.expectKeepsEverything(result, base: base, ours: ours, theirs: theirs)
            if result.text() == git.output && result.conflictCount == git.conflicts {
                agreed += 1
                continue
            }
            let gitLines = GitMergeFile.contentLines(git.output)
            let ourLines = GitMergeFile.contentLines(result.text())
            for side in [ours, theirs] {
                let inserted = GitMergeFile.inserted(side, against: base)
                #expect(GitMergeFile.isSubsequence(inserted, of: gitLines), "git dropped a line of \(triple)")
                #expect(GitMergeFile.isSubsequence(inserted, of: ourLines), "we dropped a line of \(triple)")
            }
        }
        print("ThreeWayMerge: \(agreed) of \(Self.tripleCount) triples byte-identical to git merge-file -p --diff3 (exit code = conflict count)")
        #expect(agreed > Self.tripleCount / 2)
    }
}

enum GitMergeFile {
    static let isInstalled = FileManager.default.isExecutableFile(atPath: "/usr/bin/git")

    struct Outcome { let output: String; let conflicts: Int }

    /// Runs `git merge-file` once per triple from four shells at once. Each shell's script carries
    /// its triples inline (printf with octal escapes writes them to three scratch files, overwritten
    /// per triple) and prints each merge followed by \u{1} and git's exit code, so a run makes
    /// twenty files, not three per triple.
    /// `style` is git's conflict style option (`--diff3`, or none for git's default, `git merge-file -p`).
    static func run(_ triples: [(base: String, ours: String, theirs: String)], style: String = "--diff3",
                    shells: Int = 4) throws -> [Outcome] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("merge-file-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let share = (triples.count + shells - 1) / shells
        var processes: [Process] = []
        for shell in 0..<shells {
            let part = triples[min(triples.count, shell * share)..<min(triples.count, (shell + 1) * share)]
            var script = "cd \(folder.path)\n"
            for triple in part {
                script += "printf '\(escaped(triple.base))' > b\(shell); printf '\(escaped(triple.ours))' > o\(shell); "
                script += "printf '\(escaped(triple.theirs))' > t\(shell)\n"
                script += "git merge-file -p \(style) -L ours -L base -L theirs o\(shell) b\(shell) t\(shell); printf '\\001%d\\n' $?\n"
            }
            try Data(script.utf8).write(to: folder.appendingPathComponent("script\(shell)"))
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "sh script\(shell) > output\(shell)"]
            process.currentDirectoryURL = folder
            try process.run()
            processes.append(process)
        }
        var outcomes: [Outcome] = []
        for (shell, process) in processes.enumerated() {
            process.waitUntilExit()
            let output = try Data(contentsOf: folder.appendingPathComponent("output\(shell)"))
            outcomes += parse(Array(output))
        }
        return outcomes
    }

    /// Every byte as a three-digit octal escape unless it is a letter or a digit.
    static func escaped(_ text: String) -> String {
        text.utf8.map { byte in
            let scalar = Unicode.Scalar(byte)
            if scalar.properties.isAlphabetic && byte < 0x80 || (0x30...0x39).contains(byte) { return String(scalar) }
            let octal = String(byte, radix: 8)
            return "\\" + String(repeating: "0", count: 3 - octal.count) + octal
        }.joined()
    }

    /// Splits "merge \u{1} code \n merge \u{1} code \n ..." into outcomes.
    static func parse(_ bytes: [UInt8]) -> [Outcome] {
        var outcomes: [Outcome] = []
        var start = 0
        while let separator = bytes[start...].firstIndex(of: 1),
              let newline = bytes[separator...].firstIndex(of: UInt8(ascii: "\n")) {
            let output = String(decoding: bytes[start..<separator], as: UTF8.self)
            let code = Int(String(decoding: bytes[(separator + 1)..<newline], as: UTF8.self)) ?? -1
            outcomes.append(Outcome(output: output, conflicts: code))
            start = newline + 1
        }
        return outcomes
    }

    /// The lines of a merge output without its conflict markers.
    static func contentLines(_ output: String) -> [Line] {
        Line.split(output).filter { line in
            !["<<<<<<< ", "||||||| ", ">>>>>>> "].contains { line.text.hasPrefix($0) } && line.text != "=======\n"
        }
    }

    /// The lines of `side` that the diff against the base does not match (its insertions).
    static func inserted(_ side: [Line], against base: [Line]) -> [Line] {
        var table = SymbolTable<Line>()
        let hunks = SequenceDiff.hunks(base.map { table.symbol($0) }, side.map { table.symbol($0) })
        return hunks.flatMap { side[$0.newStart..<($0.newStart + $0.newCount)] }
    }

    static func isSubsequence(_ needle: [Line], of haystack: [Line]) -> Bool {
        var index = haystack.startIndex
        for line in needle {
            guard let found = haystack[index...].firstIndex(of: line) else { return false }
            index = found + 1
        }
        return true
    }
}
