import Foundation

/// A concurrent trace: `{ "endContent", "numAgents", "txns": [ { "parents", "agent", "patches" } ] }`.
struct ConcurrentTrace {
    struct Patch {
        let position: Int
        let deleted: Int
        let inserted: [Unicode.Scalar]
    }

    struct Transaction {
        let parents: [Int]
        let agent: Int
        let patches: [Patch]
    }

    let endContent: String
    let agents: Int
    let transactions: [Transaction]
    /// Whether every scalar the trace types is ASCII (then each of its texts is).
    var isASCII: Bool { transactions.allSatisfy { $0.patches.allSatisfy { $0.inserted.allSatisfy(\.isASCII) } } }

    struct Malformed: Error {}

    /// Unpacked by the real `gzip -dc`, as vaultbench does.
    static func load(gzipped path: String) throws -> ConcurrentTrace {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-dc", path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
              let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let end = root["endContent"] as? String, let agents = root["numAgents"] as? Int,
              let transactions = root["txns"] as? [[String: Any]] else { throw Malformed() }
        return ConcurrentTrace(endContent: end, agents: agents, transactions: try transactions.enumerated().map { index, transaction in
            guard let parents = transaction["parents"] as? [Int], parents.allSatisfy({ $0 < index }),
                  let agent = transaction["agent"] as? Int, (0..<agents).contains(agent),
                  let patches = transaction["patches"] as? [[Any]] else { throw Malformed() }
            return Transaction(parents: parents, agent: agent, patches: try patches.map { patch in
                guard patch.count == 3, let position = patch[0] as? Int, let deleted = patch[1] as? Int,
                      let inserted = patch[2] as? String else { throw Malformed() }
                return Patch(position: position, deleted: deleted, inserted: Array(inserted.unicodeScalars))
            })
        })
    }
}
