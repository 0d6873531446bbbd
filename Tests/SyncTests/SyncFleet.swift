import CryptoVault
@testable import Sync
import Writing

/// Several devices of one owner, each with its own replica of one project, in memory: the model
/// the convergence tests drive, with no vault, channel or clock in the way.
struct SyncFleet {
    let project: ProjectID
    var replicas: [SyncReplica]

    init(devices count: Int) throws {
        let project = try ProjectID.random()
        self.project = project
        let authors = try (0..<count).map { _ in try SyncAuthor.random() }
        let keys = Dictionary(uniqueKeysWithValues: authors.map { ($0.device, $0.key.publicKey) })
        replicas = authors.map { SyncReplica(project: project, author: $0, devices: keys) }
    }

    /// Sends `to` every record of `from` that `to` lacks (by version vector), in `order`
    /// (parents first unless shuffled); returns how many were sent, and how many were held for their parents.
    @discardableResult
    mutating func sync(from: Int, to: Int, shuffle generator: inout SeededGenerator, shuffled: Bool = false) -> (sent: Int, held: Int) {
        var records = replicas[from].records(missingFrom: replicas[to].versionVector)
        if shuffled { records.shuffle(using: &generator) }
        var held = 0
        for record in records where replicas[to].receive(record.encoded) == .held { held += 1 }
        return (records.count, held)
    }

    /// Syncs every pair both ways until every replica holds every record.
    mutating func healAll(_ generator: inout SeededGenerator) {
        for _ in 0..<4 {
            for from in replicas.indices { for to in replicas.indices where to != from { sync(from: from, to: to, shuffle: &generator) } }
        }
    }
}

/// SplitMix64: a small deterministic generator, so a failing schedule can be replayed from its seed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension DocumentContent {
    /// The document as bytes, blocks in order with their ids: equal bytes are byte-identical documents.
    var canonicalBytes: [UInt8] { blocks.flatMap { $0.id.bytes + BlockEncoding.encode($0) } }
}
