/// One place where an adoption was refused: the document and the proposal both changed it since
/// the branch's base. It carries the three versions of that place whole (the base's blocks, the
/// document's and the proposal's), so the overlap can be shown word by word and nothing of either
/// side is lost from sight. Positions are 0-based block indexes in the document as it is and in
/// the proposal.
public struct BranchConflict: Sendable, Equatable {
    public let base: [Block]
    public let document: [Block]
    public let documentStart: Int
    public let proposal: [Block]
    public let proposalStart: Int

    public init(base: [Block], document: [Block], documentStart: Int, proposal: [Block], proposalStart: Int) {
        self.base = base
        self.document = document
        self.documentStart = documentStart
        self.proposal = proposal
        self.proposalStart = proposalStart
    }
}
