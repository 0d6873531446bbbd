/// The sealed value of a branch's proposed content (SECURITY.md §15.3):
///
///     record  = version:u8 (1) document:16 base:16 content
///             | version:u8 (2) document:16 base:16 block:16 delta
///     content = the proposed content, as `SnapshotContent` encodes it (§15.2)
///     delta   = the change from the base's content to the proposal (§15.1), which changes `block` only
///
/// Version 2 is a sync conflict's branch (§19.3): the document with one block replaced, added or
/// taken out. It holds that block, not another whole copy of the document: a merge of a long book
/// changed on two offline devices made hundreds of whole copies (BigMergeTests). The document and
/// base repeat the clear row's, so a row edited to point a branch at another document or base is
/// refused as damage when it is read. Sealed in 1 MiB parts as a snapshot is.
struct BranchRecord: Equatable {
    static let version: UInt8 = 1
    static let oneBlockVersion: UInt8 = 2
    static let headerSize = 1 + 16 + 16

    let document: NodeID
    let base: SnapshotID
    /// Version 1: the whole proposed content. Version 2: the serialized delta from the base's content.
    let content: [UInt8]
    /// Version 2 only: the one block the proposal changes.
    let block: BlockID?

    /// A version-1 record: the whole proposal.
    init(document: NodeID, base: SnapshotID, content: [UInt8]) {
        self.document = document
        self.base = base
        self.content = content
        block = nil
    }

    /// A version-2 record: the proposal as the delta from the base that changes `block` only.
    init(document: NodeID, base: SnapshotID, block: BlockID, delta: SnapshotDelta) {
        self.document = document
        self.base = base
        self.block = block
        content = delta.serialized()
    }

    init(parsing bytes: [UInt8]) throws(WritingError) {
        var reader = ByteReader(bytes: bytes, what: "a branch's sealed value")
        let version = try reader.byte()
        guard version == Self.version || version == Self.oneBlockVersion else { throw reader.damaged("an unknown branch version") }
        document = try NodeID.parsed(Array(try reader.bytes(NodeID.size)))
        base = try SnapshotID.parsed(Array(try reader.bytes(SnapshotID.size)))
        if version == Self.oneBlockVersion {
            block = try BlockID.parsed(Array(try reader.bytes(BlockID.size)))
            content = Array(bytes[(Self.headerSize + BlockID.size)...])
            // The delta must parse; that it applies to the base, and changes the block only, is
            // checked where the base is read (`WritingStore.proposedContent`).
            _ = try SnapshotDelta(parsing: content)
        } else {
            block = nil
            content = Array(bytes[Self.headerSize...])
            // The content must be a whole document: checked here so a damaged branch fails at the parse.
            _ = try SnapshotContent.decode(content)
        }
    }

    func encoded() -> [UInt8] {
        guard let block else { return [Self.version] + document.bytes + base.bytes + content }
        return [Self.oneBlockVersion] + document.bytes + base.bytes + block.bytes + content
    }

    func parts() -> [[UInt8]] { SnapshotRecord.split(encoded()) }
}
