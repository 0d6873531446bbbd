import CryptoVault
@testable import Sync
import Writing

/// The replay's resolutions by hand (merge-design §6 step 4), kept to recognise their **echo**.
///
/// Where the trace's writers both edited one paragraph between merge points, each meets the other's
/// edit as a conflict, and the trace's causality makes each resolve it before it holds the other's
/// resolution (clownschool 286/287: 287 has 285 in its past, not 286). Each resolution types what
/// the other's side hid as new characters (the product can type, never re-show, a hidden character),
/// so the trace's one newline or empty paragraph is two in the product, one per device; a later edit
/// of it on one side reaches only that side's copy. Where the two resolutions first meet in one
/// device's past, §19.3 then shows the other copy with no conflict: correct for those records, and a
/// difference made by the harness, not by the merge (SECURITY.md §19.7, verified in
/// notes/trace.md: clownschool 288, 4461, 4477). It is taken only where the pair meets
/// (`echoBlocks`) and only when it is made of the resolutions' own characters and blocks, every
/// character the trace's writers typed standing where the reference has it (`differsOnlyByTheirs`).
struct HandResolutions {
    /// A record, by its device and counter (what a character's name carries).
    struct Typist: Hashable {
        let device: DeviceID
        let counter: UInt64
    }

    struct Resolution {
        let transaction: Int
        let device: Int
        let blocks: Set<BlockID>
    }

    private(set) var all: [Resolution] = []
    /// The resolutions' records, and the blocks they made (not shown before their record).
    private var typists: Set<Typist> = []
    private var made: Set<BlockID> = []

    /// `record` written by `device`'s writer at `transaction` over a document of the blocks `shown`.
    mutating func note(_ record: ChangeRecord, transaction: Int, device: Int, over shown: Set<BlockID>) {
        let blocks = Self.blocks(writtenBy: record)
        all.append(Resolution(transaction: transaction, device: device, blocks: blocks))
        typists.insert(Typist(device: record.device, counter: record.counter))
        made.formUnion(blocks.subtracting(shown))
    }

    /// The blocks a record writes (a block value or a text edit).
    static func blocks(writtenBy record: ChangeRecord) -> Set<BlockID> {
        var blocks = Set<BlockID>()
        for operation in record.operations {
            switch operation {
            case .block(_, let id, _), .text(_, let id, _): blocks.insert(id)
            default: continue
            }
        }
        return blocks
    }

    /// The blocks an echo may show at a merge point where a device receives the records of
    /// `received` holding those of `held`: the blocks written by a pair of resolutions by two
    /// devices, neither in the other's past, that wrote a common block, one of them received now
    /// and the other held (now or before), with the pairs' transactions. Empty when no pair meets here.
    func echoBlocks(receiving received: Set<Int>, holding held: Set<Int>, precedes: (Int, Int) -> Bool) -> (blocks: Set<BlockID>, pairs: [[Int]]) {
        var blocks = Set<BlockID>(), pairs: [[Int]] = []
        for arriving in all where received.contains(arriving.transaction) {
            for other in all where other.device != arriving.device && held.contains(other.transaction)
                && !precedes(other.transaction, arriving.transaction) && !precedes(arriving.transaction, other.transaction)
                && !other.blocks.isDisjoint(with: arriving.blocks) {
                blocks.formUnion(other.blocks.union(arriving.blocks))
                pairs.append([other.transaction, arriving.transaction])
            }
        }
        return (blocks, pairs)
    }

    /// Whether `shown` becomes `expected` by taking out only characters a resolution typed and blocks
    /// a resolution made holding only such characters (each with the blank line after it, or before
    /// it when last): every other character, typed by the trace's writers, stands where the
    /// reference has it.
    func differsOnlyByTheirs(_ shown: DocumentContent, from expected: String, in replica: SyncReplica) -> Bool {
        var scalars: [Unicode.Scalar] = [], theirs: [Bool] = []
        var blockTheirs: [Bool] = []
        var texts: [(scalars: [Unicode.Scalar], theirs: [Bool])] = []
        for block in shown.blocks {
            let (characters, indices) = replica.characters(of: block.id)
            guard characters == Array(block.text.unicodeScalars) else { return false }
            let typed = indices.map { index in
                let name = replica.name(ofShown: index, in: block.id)
                return typists.contains(Typist(device: name.device, counter: name.counter))
            }
            texts.append((characters, typed))
            blockTheirs.append(made.contains(block.id) && !typed.contains(false))
        }
        for (position, text) in texts.enumerated() {
            if position > 0 {
                let line = blockTheirs[position - 1] || (position == texts.count - 1 && blockTheirs[position])
                scalars += ["\n", "\n"]
                theirs += [line, line]
            }
            scalars += text.scalars
            theirs += text.theirs
        }
        return Self.reduces(scalars, theirs: theirs, to: Array(expected.unicodeScalars))
    }

    /// Whether deleting only scalars marked in `theirs` from `text` can give `target`. The equal
    /// first and last runs are set aside but for a margin (so a marked scalar equal to its
    /// neighbours is not set aside in an unmarked one's place); the rest by dynamic programming.
    static func reduces(_ text: [Unicode.Scalar], theirs: [Bool], to target: [Unicode.Scalar]) -> Bool {
        var head = 0, tail = 0
        while head < text.count && head < target.count && text[head] == target[head] { head += 1 }
        while tail < text.count - head && tail < target.count - head && text[text.count - 1 - tail] == target[target.count - 1 - tail] { tail += 1 }
        let margin = 64
        head = max(0, head - margin)
        tail = max(0, tail - margin)
        let a = text[head..<(text.count - tail)], marked = theirs[head..<(text.count - tail)], b = target[head..<(target.count - tail)]
        guard a.count * b.count <= 4_000_000 else { return false }
        let aStart = a.startIndex, bStart = b.startIndex
        // row[j]: whether a[i...] reduces to b[j...], for the current i (from the end).
        var row = [Bool](repeating: false, count: b.count + 1)
        row[b.count] = true
        for i in stride(from: a.count - 1, through: 0, by: -1) {
            var above = [Bool](repeating: false, count: b.count + 1)
            let deletable = marked[aStart + i]
            above[b.count] = deletable && row[b.count]
            for j in stride(from: b.count - 1, through: 0, by: -1) {
                above[j] = (a[aStart + i] == b[bStart + j] && row[j + 1]) || (deletable && row[j])
            }
            row = above
        }
        return row[0]
    }
}
