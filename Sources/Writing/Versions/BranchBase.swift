/// The content of the snapshot a store last made or read a one-block branch against (SECURITY.md
/// §15.3, record version 2). A sync receive makes every conflict branch of a document against one
/// shared base, so rebuilding it once per branch (a whole document each, 170 times in
/// BigMergeTests) would cost what the one-block record saves. A snapshot's content never changes,
/// and a store lives inside one transaction, so it is held by id; only the last one is kept.
final class BranchBase {
    private var held: (id: SnapshotID, bytes: [UInt8], content: DocumentContent)?

    /// The snapshot's content bytes and blocks, read with `read` unless held already.
    func content(of id: SnapshotID, read: () throws -> [UInt8]) throws -> (bytes: [UInt8], content: DocumentContent) {
        if let held, held.id == id { return (held.bytes, held.content) }
        let bytes = try read()
        let content = try SnapshotContent.decode(bytes)
        held = (id, bytes, content)
        return (bytes, content)
    }
}
