/// The sealed value of a branch's proposed content (SECURITY.md §15.3):
///
///     record  = version:u8 (1) document:16 base:16 content
///     content = the proposed content, as `SnapshotContent` encodes it (§15.2)
///
/// The document and base repeat the clear row's, so a row edited to point a branch at another
/// document or base is refused as damage when it is read. Sealed in 1 MiB parts as a snapshot is.
struct BranchRecord: Equatable {
    static let version: UInt8 = 1
    static let headerSize = 1 + 16 + 16

    let document: NodeID
    let base: SnapshotID
    let content: [UInt8]

    init(document: NodeID, base: SnapshotID, content: [UInt8]) {
        self.document = document
        self.base = base
        self.content = content
    }

    init(parsing bytes: [UInt8]) throws(WritingError) {
        var reader = ByteReader(bytes: bytes, what: "a branch's sealed value")
        guard try reader.byte() == Self.version else { throw reader.damaged("an unknown branch version") }
        document = try NodeID.parsed(Array(try reader.bytes(NodeID.size)))
        base = try SnapshotID.parsed(Array(try reader.bytes(SnapshotID.size)))
        content = Array(bytes[Self.headerSize...])
        // The content must be a whole document: checked here so a damaged branch fails at the parse.
        _ = try SnapshotContent.decode(content)
    }

    func encoded() -> [UInt8] { [Self.version] + document.bytes + base.bytes + content }

    func parts() -> [[UInt8]] { SnapshotRecord.split(encoded()) }
}
