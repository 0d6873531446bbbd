/// The harness's own reference text of a concurrent trace (merge-design §6, Appendix B): a list CRDT
/// of its own, sharing nothing with the product's merge, that gives the text at any transaction's
/// parents as the trace's writers saw it. Each agent's transactions form one chain, so a
/// transaction's past is a version clock. The characters stand in one global order, a linked list;
/// a character is shown at a clock when its transaction is in the clock and none of its deleting
/// transactions is (no two agents insert at one place concurrently in these corpora).
struct TraceReference {
    /// Per transaction: its agent, its agent's chain number (from 1) and its clock (per agent, the
    /// last in its past). The agent is kept apart from the trace so that the walk over every
    /// character, the replay's hottest loop, reads two integer arrays and copies no transaction.
    private let agents: Int
    private var agentOf: [Int] = []
    private var sequence: [Int] = []
    private var clocks: [[Int]] = []
    /// Per character: the next in the global order (-1: none), its scalar, the transaction that typed
    /// it, the first transaction that deleted it (-1: none) and, rarely, further ones (two agents
    /// deleting one character concurrently).
    private var next: [Int32] = []
    private var scalars: [Unicode.Scalar] = []
    private var typedBy: [Int32] = []
    private var deletedBy: [Int32] = []
    private var alsoDeletedBy: [Int32: [Int32]] = [:]
    private var first: Int32 = -1
    /// Whether every character typed is ASCII: the text is then built from bytes (scalar by scalar
    /// costs several times more in a debug build).
    private var ascii = true
    /// Per agent, the characters its text shows at `shownAt`, its clock, kept while it types alone.
    private var shown: [[Int32]]
    private var shownAt: [[Int]]

    init(_ trace: ConcurrentTrace) {
        agents = trace.agents
        shown = Array(repeating: [], count: trace.agents)
        shownAt = Array(repeating: Array(repeating: 0, count: trace.agents), count: trace.agents)
        var counts = Array(repeating: 0, count: trace.agents)
        for transaction in trace.transactions {
            counts[transaction.agent] += 1
            agentOf.append(transaction.agent)
            sequence.append(counts[transaction.agent])
            var clock = clock(of: transaction.parents)
            clock[transaction.agent] = counts[transaction.agent]
            clocks.append(clock)
        }
    }

    /// The clock of a set of parents (their pasts joined).
    func clock(of parents: [Int]) -> [Int] {
        var clock = Array(repeating: 0, count: agents)
        for parent in parents { for agent in clock.indices { clock[agent] = max(clock[agent], clocks[parent][agent]) } }
        return clock
    }

    /// Whether transaction `a` is in the past of transaction `b` (`b` itself included).
    func precedes(_ a: Int, _ b: Int) -> Bool { clocks[b][agentOf[a]] >= sequence[a] }

    private func inClock(_ transaction: Int32, _ clock: [Int]) -> Bool {
        clock[agentOf[Int(transaction)]] >= sequence[Int(transaction)]
    }

    private func isShown(_ character: Int, at clock: [Int]) -> Bool {
        guard inClock(typedBy[character], clock) else { return false }
        let deleter = deletedBy[character]
        guard deleter >= 0 else { return true }
        if inClock(deleter, clock) { return false }
        guard let more = alsoDeletedBy[Int32(character)] else { return true }
        for other in more where inClock(other, clock) { return false }
        return true
    }

    /// The characters shown at `clock`, in order.
    private func characters(at clock: [Int]) -> [Int32] {
        var out: [Int32] = [], at = first
        while at >= 0 {
            if isShown(Int(at), at: clock) { out.append(at) }
            at = next[Int(at)]
        }
        return out
    }

    /// The text at the parents of transaction `index` (what its writer saw before typing it). It
    /// becomes the agent's shown text, so `apply(transaction:)` of the same transaction walks the
    /// characters no second time.
    mutating func text(beforeTransaction index: Int, parents: [Int]) -> String {
        let agent = agentOf[index]
        showText(of: agent, at: clock(of: parents))
        if ascii { return String(decoding: shown[agent].map { UInt8(truncatingIfNeeded: scalars[Int($0)].value) }, as: UTF8.self) }
        var text = String.UnicodeScalarView()
        text.append(contentsOf: shown[agent].map { scalars[Int($0)] })
        return String(text)
    }

    private mutating func showText(of agent: Int, at clock: [Int]) {
        guard clock != shownAt[agent] else { return }
        shown[agent] = characters(at: clock)
        shownAt[agent] = clock
    }

    /// Applies transaction `index` (in order: every transaction after those in its past) to its agent's text.
    mutating func apply(_ transaction: ConcurrentTrace.Transaction, index: Int) {
        let agent = transaction.agent
        showText(of: agent, at: clock(of: transaction.parents))
        for patch in transaction.patches {
            let from = min(patch.position, shown[agent].count), to = min(shown[agent].count, from + patch.deleted)
            for character in shown[agent][from..<to] { delete(character, by: Int32(index)) }
            var typed: [Int32] = [], after: Int32 = from > 0 ? shown[agent][from - 1] : -1
            for scalar in patch.inserted {
                let character = Int32(scalars.count)
                scalars.append(scalar)
                ascii = ascii && scalar.isASCII
                typedBy.append(Int32(index))
                deletedBy.append(-1)
                if after < 0 {
                    next.append(first)
                    first = character
                } else {
                    next.append(next[Int(after)])
                    next[Int(after)] = character
                }
                after = character
                typed.append(character)
            }
            shown[agent].replaceSubrange(from..<to, with: typed)
        }
        shownAt[agent] = clocks[index]
    }

    private mutating func delete(_ character: Int32, by transaction: Int32) {
        if deletedBy[Int(character)] < 0 { deletedBy[Int(character)] = transaction } else { alsoDeletedBy[character, default: []].append(transaction) }
    }
}
