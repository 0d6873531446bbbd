import CryptoVault
@testable import Sync
import Testing
import Writing

/// Several devices of one owner, each with its own replica of one project, in memory: the model
/// the convergence tests drive, with no vault, channel or clock in the way.
struct SyncFleet {
    let project: ProjectID
    var replicas: [SyncReplica]
    /// When kept, each device's branches as its vault would make them at the end of each sync (`BranchBook`).
    var books: [BranchBook]?
    /// Whether a device that writes commits its join after each receive, as the vault does
    /// (`VaultSync.receive`, `SyncReplica.commitJoin`): pending conflicts become facts.
    var joins = true

    /// `colleagues`: the devices that are someone else's (SECURITY.md §19.4: each replica's own set is
    /// its side's devices, the owner's or the colleague's). `inRankOrder`: device i's id sorts below
    /// device i+1's, so records of equal Lamport time rank by device index in every run (the ids are
    /// random) and a long replay takes the same path each time.
    init(devices count: Int, colleagues: Set<Int> = [], inRankOrder: Bool = false) throws {
        let project = try ProjectID.random()
        self.project = project
        var authors = try (0..<count).map { _ in try SyncAuthor.random() }
        if inRankOrder { authors.sort { $0.device.bytes.lexicographicallyPrecedes($1.device.bytes) } }
        let keys = Dictionary(uniqueKeysWithValues: authors.map { ($0.device, $0.key.publicKey) })
        let owners = Set(authors.indices.filter { !colleagues.contains($0) }.map { authors[$0].device })
        let theirs = Set(colleagues.map { authors[$0].device })
        replicas = authors.indices.map { index in
            SyncReplica(project: project, author: authors[index], devices: keys, own: colleagues.contains(index) ? theirs : owners)
        }
        // As a vault receives (VaultSync.receive): every 0x03 must name a conflict its record's
        // past makes (SECURITY.md §19.4), so every schedule checks that honest devices' are founded.
        for index in replicas.indices { replicas[index].checksConflictClaims = true }
    }

    /// Sends `to` every record of `from` that `to` lacks (by version vector), in `order`
    /// (parents first unless shuffled); returns how many were sent, and how many were held for their parents.
    @discardableResult
    mutating func sync(from: Int, to: Int, shuffle generator: inout SeededGenerator, shuffled: Bool = false) -> (sent: Int, held: Int) {
        var records = replicas[from].records(missingFrom: replicas[to].versionVector)
        if shuffled { records.shuffle(using: &generator) }
        var held = 0
        for record in records where replicas[to].receive(record.encoded) == .held { held += 1 }
        if joins, replicas[to].author != nil {
            do { _ = try replicas[to].commitJoin() } catch { Issue.record("device \(to)'s join failed: \(error)") }
        }
        if books != nil { books![to].keep(&replicas[to]) }
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

/// The syncConflict branches a vault makes of a replica's conflicts as exchanges end
/// (`VaultSync.keepConflicts`): each conflict met while its document is shown becomes a branch with
/// its proposal, and a document's branches go with the document. Equal books are equal branches by
/// what every device agrees on, what the records decide (merge-design §2): id, document, block and
/// losing value. The rest of a proposal is the device's own document when it made the branch.
struct BranchBook: Equatable {
    struct Kept: Equatable {
        let document: NodeID
        let block: BlockID
        let losing: BlockValue
        let proposal: DocumentContent

        static func == (a: Kept, b: Kept) -> Bool { a.document == b.document && a.block == b.block && a.losing == b.losing }
    }

    /// By conflict id.
    private(set) var branches: [BranchID: Kept] = [:]

    /// What the vault does at the end of an exchange.
    mutating func keep(_ replica: inout SyncReplica) {
        let shown = Set(replica.documents)
        branches = branches.filter { shown.contains($0.value.document) }
        for conflict in replica.conflicts() where branches[conflict.branch] == nil && shown.contains(conflict.document) {
            branches[conflict.branch] = Kept(document: conflict.document, block: conflict.block, losing: conflict.losing,
                                             proposal: Self.proposal(conflict, &replica))
        }
    }

    /// The branch the vault makes for `conflict` (`VaultSync.keepConflicts`).
    static func proposal(_ conflict: SyncConflict, _ replica: inout SyncReplica) -> DocumentContent {
        replica.proposal(for: conflict)
    }

    /// Each branch as `conflict id: its proposal's texts`, for messages.
    var described: [String] {
        branches.map { "\($0.key.hex.prefix(8)): \($0.value.proposal.blocks.map(\.text))" }.sorted()
    }
}
