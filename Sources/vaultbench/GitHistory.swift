import Foundation

/// The peer of the vault's snapshot store: the same versions committed to a real git repository
/// (one commit per version, then `git gc --aggressive`), run as the `git` program. The repository
/// is made with an empty template (no sample hooks) and automatic gc off, so its size is the
/// history's and the gc is the one asked for.
final class GitHistory {
    let git: String
    let repository: String
    private let file: String
    private var commits = 0
    /// Time spent in git, in seconds.
    private(set) var seconds = 0.0

    init?(in folder: String) throws {
        guard let git = ChildProcess.which("git") else { return nil }
        self.git = git
        repository = folder
        file = folder + "/document.txt"
        let template = folder + ".template"
        try FileManager.default.createDirectory(atPath: template, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: template) }
        try run(["init", "-q", "--template=\(template)", repository])
    }

    /// Commits `text` as the next version.
    func commit(_ text: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        commits += 1
        try run(["-C", repository, "add", "document.txt"])
        try run(["-C", repository] + Self.identity + ["commit", "-q", "--no-verify", "--allow-empty", "-m", "version \(commits)"])
    }

    func collectGarbage() throws {
        try run(["-C", repository] + Self.identity + ["gc", "--aggressive", "--prune=now", "-q"])
    }

    /// The committed text of version `number` (1 for the first).
    func text(ofVersion number: Int) throws -> String {
        try ChildProcess.output(git, ["-C", repository, "show", "HEAD~\(commits - number):document.txt"])
    }

    /// Every byte under `.git`.
    var size: Int { DiskUsage.bytes(under: repository + "/.git") }

    /// The same author, no signing and no automatic gc whatever the user's configuration says.
    static let identity = ["-c", "user.name=vaultbench", "-c", "user.email=vaultbench@localhost", "-c", "commit.gpgsign=false",
                           "-c", "gc.auto=0"]

    private func run(_ arguments: [String]) throws {
        seconds += try ChildProcess.run(git, arguments).wallSeconds
    }
}

/// The bytes of every regular file under a folder (the sizes the files hold, not their blocks).
enum DiskUsage {
    static func bytes(ofFile path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    static func bytes(under folder: String) -> Int {
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return 0 }
        var total = 0
        for case let path as String in walker {
            let attributes = try? FileManager.default.attributesOfItem(atPath: folder + "/" + path)
            if attributes?[.type] as? FileAttributeType == .typeRegular { total += (attributes?[.size] as? Int) ?? 0 }
        }
        return total
    }
}
