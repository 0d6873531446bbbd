/// The harness's own reference text of a concurrent trace (merge-design §6, Appendix B): a list CRDT
/// of its own, sharing nothing with the product's merge, that gives the text at any transaction's
/// parents as the trace's writers saw it. Each agent's transactions form one chain, so a
/// transaction's past is a version clock. The characters stand in one global order, a linked list;
/// a character is shown at a clock when its transaction is in the clock and none of its deleting
/// transactions is (no two agents insert at one place concurrently in these corpora).
struct TraceReference {
    private let trace: ConcurrentTrace
    /// Per transaction: its agent's chain number (from 1) and its clock (per agent, the last in its past).
    private var sequence: [Int] = []
    private var clocks: [[Int]] = []
    /// Per character: the next in the global order (-1: none), its scalar, the transaction that typed it
    /// and those that deleted it.
    private var next: [Int32] = []
    private var scalars: [Unicode.Scalar] = []
    private var typedBy: [Int32] = []
    private var deletedBy: [[Int32]] = []
    private var first: Int32 = -1
    /// Per agent, the characters its text shows at `shownAt`, its clock, kept while it types alone.
    private var shown: [[Int32]]
    private var shownAt: [[Int]]

    init(_ trace: ConcurrentTrace) {
        self.trace = trace
        shown = Array(repeating: [], count: trace.agents)
        shownAt = Array(repeating: Array(repeating: 0, count: trace.agents), count: trace.agents)
        var counts = Array(repeating: 0, count: trace.agents)
        for transaction in trace.transactions {
            counts[transaction.agent] += 1
            sequence.append(counts[transaction.agent])
            var clock = Array(repeating: 0, count: trace.agents)
            for parent in transaction.parents { for agent in clock.indices { clock[agent] = max(clock[agent], clocks[parent][agent]) } }
            clock[transaction.agent] = counts[transaction.agent]
            clocks.append(clock)
        }
    }

    /// The clock of a set of parents (their pasts joined).
    func clock(of parents: [Int]) -> [Int] {
        var clock = Array(repeating: 0, count: trace.agents)
        for parent in parents { for agent in clock.indices { clock[agent] = max(clock[agent], clocks[parent][agent]) } }
        return clock
    }

    private func inClock(_ transaction: Int32, _ clock: [Int]) -> Bool {
        clock[trace.transactions[Int(transaction)].agent] >= sequence[Int(transaction)]
    }

    /// The characters shown at `clock`, in order.
    private func characters(at clock: [Int]) -> [Int32] {
        var out: [Int32] = [], at = first
        while at >= 0 {
            let index = Int(at)
            if inClock(typedBy[index], clock) && !deletedBy[index].contains(where: { inClock($0, clock) }) { out.append(at) }
            at = next[index]
        }
        return out
    }

    /// The text at the parents of transaction `index` (what its writer saw before typing it).
    func text(beforeTransaction index: Int) -> String {
        let clock = clock(of: trace.transactions[index].parents)
        var text = String.UnicodeScalarView()
        text.append(contentsOf: characters(at: clock).map { scalars[Int($0)] })
        return String(text)
    }

    /// Applies transaction `index` (in order: every transaction after those in its past) to its agent's text.
    mutating func apply(transaction index: Int) {
        let transaction = trace.transactions[index], agent = transaction.agent
        let parents = clock(of: transaction.parents)
        if parents != shownAt[agent] { shown[agent] = characters(at: parents) }
        for patch in transaction.patches {
            let from = min(patch.position, shown[agent].count), to = min(shown[agent].count, from + patch.deleted)
            for character in shown[agent][from..<to] { deletedBy[Int(character)].append(Int32(index)) }
            var typed: [Int32] = [], after: Int32 = from > 0 ? shown[agent][from - 1] : -1
            for scalar in patch.inserted {
                let character = Int32(scalars.count)
                scalars.append(scalar)
                typedBy.append(Int32(index))
                deletedBy.append([])
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
}
