import Foundation
import Testing
import TestSupport

/// `vaultctl doc write` never drops words it did not see (issue 17, review 17 F6): the laptop reads
/// a document (`doc show` says which version), a sync brings the desk's words, then the laptop
/// writes its text back. With `--base` the two are merged, a paragraph both changed keeping the
/// laptop's text in the document and the desk's in a sync-conflict branch; without it the document
/// is replaced and the desk's words are kept as a version.
@Suite(.serialized) struct DocWriteBaseTests {
    final class Laptop {
        let f: SyncOverNetworkFixture
        init() throws { f = try SyncOverNetworkFixture() }

        func run(_ arguments: [String]) throws -> CLI.Result { try f.hosts.run(.laptop, f.laptop, arguments) }

        func json(_ arguments: [String]) throws -> [String: Any] {
            let result = try run(arguments + ["--json"])
            return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(arguments): \(result.stderr)")
        }

        /// The version `doc show` gives, and that it says so on stderr in text mode.
        func readVersion() throws -> String {
            let shown = try run(["doc", "show", "Field notes", "Day one"])
            let version = try #require(try json(["doc", "show", "Field notes", "Day one"])["version"] as? String)
            #expect(shown.stderr.contains("version \(version)") && shown.stderr.contains("--base \(version)"), "\(shown.stderr)")
            return version
        }

        /// The desk writes `text` through its daemon, and the laptop syncs.
        func deskWritesAndSync(_ text: String) throws {
            try f.desk.write(text, to: f.desk.root + "/desk.txt")
            let written = try f.desk.run(["doc", "write", "Field notes", "Day one", f.desk.root + "/desk.txt"], unlock: false)
            try #require(written.status == 0, "\(written.stderr)")
            try #require(try f.sync().status == 0)
        }

        func write(_ text: String, base: String?) throws -> [String: Any] {
            try f.laptop.write(text, to: f.laptop.root + "/laptop.txt")
            return try json(["doc", "write", "Field notes", "Day one", f.laptop.root + "/laptop.txt"] + (base.map { ["--base", $0] } ?? []))
        }

        var text: String { get throws { try run(["doc", "show", "Field notes", "Day one"]).stdout } }
    }

    @Test func editsOfOtherParagraphsAreMergedWithWhatTheSyncBrought() throws {
        let laptop = try Laptop()
        let version = try laptop.readVersion()
        try laptop.deskWritesAndSync("p0\n\np1\n\np2 and the desk's words\n\np3\n")
        let written = try laptop.write("p0 edited on the laptop\n\np1\n\np2\n\np3\n", base: version)
        #expect(written["merged"] as? Bool == true && written["conflicts"] as? Int == 0, "\(written)")
        let text = try laptop.text
        #expect(text.contains("p0 edited on the laptop") && text.contains("p2 and the desk's words"), "\(text)")
        try #require(try laptop.f.sync().status == 0)
        let desk = try laptop.f.desk.run(["doc", "show", "Field notes", "Day one"], unlock: false).stdout
        #expect(desk == text, "the desk and the laptop differ: \(desk) / \(text)")
    }

    @Test func aParagraphBothChangedKeepsTheWritersTextAndTheDesksWordsInABranch() throws {
        let laptop = try Laptop()
        let version = try laptop.readVersion()
        try laptop.deskWritesAndSync("p0\n\np1 as the desk wrote it\n\np2\n\np3\n")
        let written = try laptop.write("p0\n\np1 as the laptop wrote it\n\np2\n\np3\n", base: version)
        #expect(written["merged"] as? Bool == true && written["conflicts"] as? Int == 1, "\(written)")
        let branch = try #require(written["branch"] as? String, "\(written)")
        #expect(try laptop.text.contains("p1 as the laptop wrote it"))
        let kept = try laptop.run(["branch", "show", "Field notes", "Day one", branch])
        #expect(kept.stdout.contains("p1 as the desk wrote it"), "the desk's words are not in the branch: \(kept.stdout) \(kept.stderr)")
        let conflicts = try laptop.run(["conflicts", "Field notes"])
        #expect(conflicts.stdout.contains(branch), "'conflicts' does not list the branch: \(conflicts.stdout)")
    }

    @Test func withoutABaseTheDocumentIsReplacedAndTheDesksWordsAreKeptAsAVersion() throws {
        let laptop = try Laptop()
        _ = try laptop.readVersion()
        try laptop.deskWritesAndSync("p0\n\np1\n\np2\n\np3 and the desk's words\n")
        let written = try laptop.write("p0\n\np1\n\np2\n\np3\n", base: nil)
        #expect(written["merged"] as? Bool == false, "\(written)")
        #expect(!(try laptop.text).contains("the desk's words"), "without --base the text written is the document")
        let replaced = try #require(written["replaced_version"] as? String, "no version keeps what was replaced: \(written)")
        let old = try laptop.run(["snapshot", "show", "Field notes", "Day one", replaced])
        #expect(old.stdout.contains("p3 and the desk's words"), "\(old.stdout) \(old.stderr)")
    }

    @Test func aBaseThatIsNoVersionOfTheDocumentIsRefusedAndNothingIsWritten() throws {
        let laptop = try Laptop()
        let before = try laptop.text
        try laptop.f.laptop.write("p0 new\n", to: laptop.f.laptop.root + "/laptop.txt")
        let refused = try laptop.run(["doc", "write", "Field notes", "Day one", laptop.f.laptop.root + "/laptop.txt", "--base", String(repeating: "ab", count: 16)])
        #expect(refused.status == 66, "\(refused.status) \(refused.stderr)")
        #expect(refused.stderr.contains("snapshot") || refused.stderr.contains("version"), "\(refused.stderr)")
        let malformed = try laptop.run(["doc", "write", "Field notes", "Day one", laptop.f.laptop.root + "/laptop.txt", "--base", "yesterday"])
        #expect(malformed.status == 66 && malformed.stderr.contains("--base takes the version"), "\(malformed.status) \(malformed.stderr)")
        #expect(try laptop.text == before)
    }
}
