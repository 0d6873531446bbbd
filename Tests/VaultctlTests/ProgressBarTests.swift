import Foundation
import Testing

/// Long bundle work shows a progress bar on stderr when stderr is a terminal, and nothing of it when
/// stderr is a file or a pipe (scripts and logs must not fill with carriage returns).
@Suite("vaultctl: progress bar on a terminal only")
struct ProgressBarTests {
    static let barMarks = ["[", "%", "\r"]

    @Test("seal, put, open and get draw a bar that reaches 100% on a terminal")
    func barOnTerminal() throws {
        let fixture = try BundleCLI()
        try fixture.randomFile("scan.tiff", count: 3 << 20)
        let credentials = ["--vault", fixture.directory, "--passphrase-file", fixture.passphraseFile]
        let commands: [(label: String, arguments: [String])] = [
            ("sealing", ["seal", "--compartment", "files", fixture.file("scan.tiff"), "-o", fixture.file("scan.vbundle")]),
            ("opening", ["open", fixture.file("scan.vbundle"), "-o", fixture.file("scan.out")]),
            ("sealing", ["put", "--compartment", "files", fixture.file("scan.tiff")]),
        ]
        for command in commands {
            let shown = try Terminal.run(command.arguments + credentials, typing: [])
            #expect(shown.status == 0, "\(command.arguments[0]): \(shown.stdout)\(shown.stderr)")
            #expect(shown.stdout.contains("\r\(command.label) ["), "\(command.arguments[0]) drew no bar: \(shown.stdout)")
            #expect(shown.stdout.contains("] 100%"), "\(command.arguments[0])'s bar did not reach 100%: \(shown.stdout)")
        }
        let stored = try fixture.run(["ls", "--json"])
        let id = try #require(stored.stdout.split(separator: "\"").first { $0.count == 32 && $0.allSatisfy(\.isHexDigit) })
        let got = try Terminal.run(["get", String(id), "-o", fixture.file("got.out")] + credentials, typing: [])
        #expect(got.status == 0 && got.stdout.contains("\ropening [") && got.stdout.contains("] 100%"), "\(got.stdout)")
        #expect(try fixture.bytes("got.out") == fixture.bytes("scan.tiff"))
    }

    @Test("a tiny file draws no bar even on a terminal: seal and open of 2 KiB leave no progress line")
    func noBarForTinyFiles() throws {
        let fixture = try BundleCLI()
        try fixture.randomFile("note.txt", count: 2048)
        let credentials = ["--vault", fixture.directory, "--passphrase-file", fixture.passphraseFile]
        let sealed = try Terminal.run(["seal", "--compartment", "files", fixture.file("note.txt"), "-o", fixture.file("note.vbundle")]
                                      + credentials, typing: [])
        let opened = try Terminal.run(["open", fixture.file("note.vbundle"), "-o", fixture.file("note.out")] + credentials, typing: [])
        for result in [sealed, opened] {
            #expect(result.status == 0, "\(result.stdout)")
            #expect(!result.stdout.contains("sealing") && !result.stdout.contains("opening"), "a bar was drawn: \(result.stdout)")
            #expect(!result.stdout.contains("%"), "\(result.stdout)")
        }
        #expect(try fixture.bytes("note.out") == fixture.bytes("note.txt"))
    }

    @Test("with stderr redirected, no bar is drawn and only the result lines remain")
    func silentOtherwise() throws {
        let fixture = try BundleCLI()
        try fixture.randomFile("scan.tiff", count: 3 << 20)
        let sealed = try fixture.run(["seal", "--compartment", "files", fixture.file("scan.tiff"), "-o", fixture.file("scan.vbundle")])
        let opened = try fixture.run(["open", fixture.file("scan.vbundle"), "-o", fixture.file("scan.out")])
        let put = try fixture.run(["put", "--compartment", "files", fixture.file("scan.tiff")])
        for result in [sealed, opened, put] {
            #expect(result.status == 0, "\(result.stderr)")
            for mark in Self.barMarks { #expect(!result.stderr.contains(mark), "stderr has \(mark.debugDescription): \(result.stderr)") }
        }
    }
}
