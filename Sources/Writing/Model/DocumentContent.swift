/// What a document holds, in reading order: the value that is snapshotted, diffed, merged and
/// branched. A long-form document (a novel's chapter text) is the same value with paragraph blocks.
public struct DocumentContent: Sendable, Hashable {
    public var blocks: [Block]

    public init(blocks: [Block] = []) { self.blocks = blocks }
}
