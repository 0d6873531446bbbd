/// Whether a document still is what an editor last read (its base), told without opening a block:
/// the stored blocks' ids, order and clear kinds against the base's, and each sealed value against
/// its digest (`holds`, which a privileged project answers only in a session, as a read). An editor
/// sends its base with a save, so a change that landed meanwhile (another device's, synced; the CLI's)
/// is never silently replaced by words typed over the older text.
extension WritingStore {
    public func document(_ document: NodeID, in projectID: ProjectID, holds base: DocumentContent) throws -> Bool {
        let project = try self.project(projectID)
        try checkDocument(document, in: project)
        let rows = try blockRows(in: document, of: project)
        guard rows.map(\.id) == base.blocks.map(\.id) else { return false }
        for (row, block) in zip(rows, base.blocks) {
            guard row.kind == BlockEncoding.name(of: block.kind),
                  try holds(BlockEncoding.encode(block), at: try WritingRecord.block(row.id), of: project) else { return false }
        }
        return true
    }
}
