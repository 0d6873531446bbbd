/// The merge an adoption (and a revert of a document that moved on since) makes: the base, the
/// document as it is ("ours") and the proposal ("theirs"), merged block by block (`ThreeWayMerge`).
/// A block both sides changed, or changes that touch, is a conflict; a conflict is never settled
/// by picking a side, it is refused with the overlapping blocks named, so nothing is dropped.
enum BranchMerge {
    /// What the merge is for, which says how its refusal names the sides: an adoption merges the
    /// proposal into the document; a revert merges the text before the adoption into the document,
    /// from the adopted version.
    enum Purpose: Sendable {
        case adoption, revert

        var overlapping: String {
            self == .adoption ? "the document and the proposal both changed the same place"
                : "the document was edited since the adoption where the adoption changed it"
        }
        var other: String { self == .adoption ? "the proposal" : "the text before the adoption" }
    }

    /// The merged content, or `.branchConflict` listing each overlap.
    static func merge(base: DocumentContent, ours: DocumentContent, theirs: DocumentContent,
                      for purpose: Purpose = .adoption) throws(WritingError) -> DocumentContent {
        let base = base.blocks.map(EncodedBlock.init), ours = ours.blocks.map(EncodedBlock.init), theirs = theirs.blocks.map(EncodedBlock.init)
        if ours == base { return DocumentContent(blocks: theirs.map(\.block)) }
        if theirs == base || theirs == ours { return DocumentContent(blocks: ours.map(\.block)) }
        let result = try ThreeWayMerge.blocks(base: base, ours: ours, theirs: theirs)
        let overlaps = conflicts(in: result, for: purpose)
        guard overlaps.isEmpty, let merged = result.merged?.map(\.block) else {
            throw WritingError(.branchConflict, purpose.overlapping + ": " + overlaps.joined(separator: "; ") + " (nothing was changed)")
        }
        // Each side kept a block but put it in a different place: the merge would hold it twice.
        guard Set(merged.map(\.id)).count == merged.count else {
            throw WritingError(.branchConflict, "the document and \(purpose.other) moved the same block to different places (nothing was changed)")
        }
        return DocumentContent(blocks: merged)
    }

    /// A block compared by its id and encoded bytes: `String ==` would take a text rewritten in
    /// another Unicode normalisation for unchanged, and the merge would drop that change.
    struct EncodedBlock: Hashable, Sendable {
        let block: Block
        let bytes: [UInt8]

        init(_ block: Block) {
            self.block = block
            bytes = block.id.bytes + BlockEncoding.encode(block)
        }

        static func == (lhs: Self, rhs: Self) -> Bool { lhs.bytes == rhs.bytes }
        func hash(into hasher: inout Hasher) { hasher.combine(bytes) }
    }

    /// Each conflict as "document blocks 3-4 (ids …) against proposed blocks 3-5 (ids …)", 1-based
    /// (a revert's: "… against blocks 3-5 (ids …) before the adoption").
    static func conflicts(in result: MergeResult<EncodedBlock>, for purpose: Purpose = .adoption) -> [String] {
        overlaps(in: result).map { overlap in
            let document = "document \(span(overlap.documentStart, overlap.document)) against "
            let other = span(overlap.proposalStart, overlap.proposal)
            return document + (purpose == .adoption ? "proposed \(other)" : "\(other) before the adoption")
        }
    }

    /// The places the merge of `base`, `ours` (the document) and `theirs` (the proposal) cannot
    /// settle, each with its three versions; empty when it merges (or the two sides moved one block
    /// apart, which has no region to show: the refusal says so).
    static func overlaps(base: DocumentContent, ours: DocumentContent, theirs: DocumentContent) throws(WritingError) -> [BranchConflict] {
        let base = base.blocks.map(EncodedBlock.init), ours = ours.blocks.map(EncodedBlock.init), theirs = theirs.blocks.map(EncodedBlock.init)
        if ours == base || theirs == base || theirs == ours { return [] }
        return overlaps(in: try ThreeWayMerge.blocks(base: base, ours: ours, theirs: theirs))
    }

    static func overlaps(in result: MergeResult<EncodedBlock>) -> [BranchConflict] {
        var found: [BranchConflict] = []
        var ourPosition = 0, theirPosition = 0
        for region in result.regions {
            if region.resolution == .conflict {
                found.append(BranchConflict(base: region.base.map(\.block), document: region.ours.map(\.block), documentStart: ourPosition,
                                            proposal: region.theirs.map(\.block), proposalStart: theirPosition))
            }
            ourPosition += region.ours.count
            theirPosition += region.theirs.count
        }
        return found
    }

    private static func span(_ start: Int, _ blocks: [Block]) -> String {
        guard !blocks.isEmpty else { return "nothing (before block \(start + 1))" }
        let range = blocks.count == 1 ? "block \(start + 1)" : "blocks \(start + 1)-\(start + blocks.count)"
        return "\(range) (\(blocks.map(\.id.hex).joined(separator: ", ")))"
    }
}
