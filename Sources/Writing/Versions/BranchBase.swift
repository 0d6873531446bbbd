/// The content of the snapshots a store made or read one-block branches against (SECURITY.md
/// §15.3, record version 2). A sync receive makes every conflict branch of a document against one
/// shared base, so rebuilding it once per branch (a whole document each, 170 times in
/// BigMergeTests) would cost what the one-block record saves. The receive makes the branches in
/// the order of the conflicts' names, so the documents' bases alternate: each is held by id, not
/// only the last (one held base was read again for nearly every branch of a week offline's four
/// shared documents). A snapshot's content never changes, and a store lives inside one transaction.
/// At most `heldBytes` of content are held: past them the held bases are let go first.
final class BranchBase {
    static let heldBytes = 16 << 20
    private var held: [SnapshotID: (bytes: [UInt8], content: DocumentContent)] = [:]
    private var heldSize = 0

    /// The snapshot's content bytes and blocks, read with `read` unless held already.
    func content(of id: SnapshotID, read: () throws -> [UInt8]) throws -> (bytes: [UInt8], content: DocumentContent) {
        if let found = held[id] { return found }
        let bytes = try read()
        let content = try SnapshotContent.decode(bytes)
        if heldSize + bytes.count > Self.heldBytes {
            held = [:]
            heldSize = 0
        }
        held[id] = (bytes, content)
        heldSize += bytes.count
        return (bytes, content)
    }
}
