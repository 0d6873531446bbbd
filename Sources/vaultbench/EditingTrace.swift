import Foundation

/// One sequential editing trace of `../shared/corpora/editing-traces` (its README gives the format):
/// `{ "startContent", "endContent", "txns": [ { "patches": [ [position, deleted, inserted] ] } ] }`,
/// positions counting Unicode code points, each transaction's patches applied one after another.
/// The file is gzipped JSON; it is unpacked by the real `gzip -dc` as a child process.
struct EditingTrace {
    struct Patch {
        let position: Int
        let deleted: Int
        let inserted: [Unicode.Scalar]
    }

    let startContent: String
    let endContent: String
    /// Every patch of every transaction, in order.
    let patches: [Patch]

    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    /// The corpus folder: `shared/corpora/editing-traces` beside the repository, looked for from the
    /// working directory upwards (the repository's `../shared`, or a worktree's further up).
    static func corpus(_ relative: String) -> String? {
        var folder = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent("shared/corpora/editing-traces").appendingPathComponent(relative).path
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
            folder.deleteLastPathComponent()
        }
        return nil
    }

    static func load(gzipped path: String) throws -> EditingTrace {
        guard let gzip = ChildProcess.which("gzip") else { throw Malformed(description: "gzip is not installed: cannot unpack \(path)") }
        let unpacked = NSTemporaryDirectory() + "vaultbench-trace-\(getpid()).json"
        defer { unlink(unpacked) }
        try ChildProcess.run(gzip, ["-dc", path], stdout: unpacked)
        return try EditingTrace(json: try Data(contentsOf: URL(fileURLWithPath: unpacked)))
    }

    init(json: Data) throws {
        guard let root = try JSONSerialization.jsonObject(with: json) as? [String: Any],
              let start = root["startContent"] as? String, let end = root["endContent"] as? String,
              let transactions = root["txns"] as? [[String: Any]] else {
            throw Malformed(description: "the trace has no startContent, endContent and txns")
        }
        var patches: [Patch] = []
        for transaction in transactions {
            for patch in transaction["patches"] as? [[Any]] ?? [] {
                guard patch.count == 3, let position = patch[0] as? Int, let deleted = patch[1] as? Int, let inserted = patch[2] as? String,
                      position >= 0, deleted >= 0 else {
                    throw Malformed(description: "patch \(patches.count + 1) is not [position, deleted, inserted]")
                }
                patches.append(Patch(position: position, deleted: deleted, inserted: Array(inserted.unicodeScalars)))
            }
        }
        startContent = start
        endContent = end
        self.patches = patches
    }
}
