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
/// notes/trace.md: clownschool 288, 4461, 4477).
struct HandResolutions {
    struct Resolution {
        let transaction: Int
        let device: Int
        let blocks: Set<BlockID>
    }

    private(set) var all: [Resolution] = []

    mutating func note(_ record: ChangeRecord, transaction: Int, device: Int) {
        all.append(Resolution(transaction: transaction, device: device, blocks: Self.blocks(writtenBy: record)))
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
    /// and the other held (now or before). Empty when no such pair meets here.
    func echoBlocks(receiving received: Set<Int>, holding held: Set<Int>, precedes: (Int, Int) -> Bool) -> Set<BlockID> {
        var blocks = Set<BlockID>()
        for arriving in all where received.contains(arriving.transaction) {
            for other in all where other.device != arriving.device && held.contains(other.transaction)
                && !precedes(other.transaction, arriving.transaction) && !precedes(arriving.transaction, other.transaction)
                && !other.blocks.isDisjoint(with: arriving.blocks) {
                blocks.formUnion(other.blocks.union(arriving.blocks))
            }
        }
        return blocks
    }
}
