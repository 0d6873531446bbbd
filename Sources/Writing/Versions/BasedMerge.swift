/// The merge a write of a document's whole text makes when it was made from an earlier version and
/// the document has moved on since (`vaultctl doc write --base VERSION`, SECURITY.md §15.6): the
/// version as the base, the document as it is now (with what sync or another command brought since)
/// and the written text, merged block by block as an adoption merges (`ThreeWayMerge`). Unlike an
/// adoption, a place both changed is not refused: the written text goes into the document there,
/// and the document's own words there go into a proposal (the merged document with those places as
/// they were), which the caller keeps as a branch, so nothing either side wrote is dropped.
public enum BasedMerge {
    public struct Outcome: Equatable, Sendable {
        /// What the document becomes.
        public let document: DocumentContent
        /// The merged document with the places both changed as the document had them (nil: none).
        public let unseen: DocumentContent?
        /// How many places both changed.
        public let conflicts: Int
    }

    public static func merge(base: DocumentContent, document: DocumentContent, written: DocumentContent) throws(WritingError) -> Outcome {
        typealias Encoded = BranchMerge.EncodedBlock
        let result = try ThreeWayMerge.blocks(base: base.blocks.map(Encoded.init), ours: document.blocks.map(Encoded.init),
                                              theirs: written.blocks.map(Encoded.init))
        var merged: [Block] = [], unseen: [Block] = [], conflicts = 0
        for region in result.regions {
            if let agreed = region.merged {
                merged += agreed.map(\.block)
                unseen += agreed.map(\.block)
            } else {
                conflicts += 1
                merged += region.theirs.map(\.block)
                unseen += region.ours.map(\.block)
            }
        }
        // Each side kept a block but put it in a different place: the merge would hold it twice.
        // Then the written text is the document and the document as it was the proposal, whole.
        guard Set(merged.map(\.id)).count == merged.count, Set(unseen.map(\.id)).count == unseen.count else {
            return Outcome(document: written, unseen: document, conflicts: max(conflicts, 1))
        }
        return Outcome(document: DocumentContent(blocks: merged), unseen: conflicts == 0 ? nil : DocumentContent(blocks: unseen),
                       conflicts: conflicts)
    }
}
