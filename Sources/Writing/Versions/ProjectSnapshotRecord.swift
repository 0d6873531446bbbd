/// The sealed value of a project snapshot (SECURITY.md §15.2):
///
///     record = version:u8 (1) project:16 count:u32 node*
///     node   = id:16 kind:u8 (1 folder, 2 document) parent:16 key:string title:string snapshot:16
///     string = u32 length || UTF-8 bytes
///
/// Nodes are in reading order, so a parent comes before what is in it. `parent` is 16 zero bytes
/// at the top level; `snapshot` is the document snapshot of a document's content, 16 zero bytes for
/// a folder. `key` is an order key (§14.2), `title` a title by the rules of §14.3. Nothing follows
/// the last node. Sealed in 1 MiB parts as a snapshot is.
struct ProjectSnapshotRecord: Equatable {
    static let version: UInt8 = 1
    static let none = [UInt8](repeating: 0, count: 16)

    let project: ProjectID
    let nodes: [ProjectSnapshotNode]

    init(project: ProjectID, nodes: [ProjectSnapshotNode]) {
        self.project = project
        self.nodes = nodes
    }

    init(parsing bytes: [UInt8]) throws(WritingError) {
        var reader = ByteReader(bytes: bytes, what: "a project snapshot's sealed value")
        guard try reader.byte() == Self.version else { throw reader.damaged("an unknown project snapshot version") }
        project = try ProjectID.parsed(Array(try reader.bytes(16)))
        let count = try reader.length()
        // The smallest node is 59 bytes: a count past what the bytes can hold is refused before any work.
        guard count <= (bytes.count - 21) / 59 else { throw reader.damaged("\(count) nodes in \(bytes.count) bytes") }
        var nodes: [ProjectSnapshotNode] = []
        var seen = Set<NodeID>()
        for _ in 0..<count {
            let node = try Self.node(&reader)
            guard seen.insert(node.id).inserted, node.parent.map(seen.contains) ?? true else {
                throw reader.damaged("a node listed twice or before its folder")
            }
            nodes.append(node)
        }
        guard reader.isAtEnd else { throw reader.damaged("bytes after the last node") }
        self.nodes = nodes
    }

    private static func node(_ reader: inout ByteReader) throws(WritingError) -> ProjectSnapshotNode {
        let id = try NodeID.parsed(Array(try reader.bytes(16)))
        let kind: NodeKind
        switch try reader.byte() {
        case 1: kind = .chapter
        case 2: kind = .scene
        default: throw reader.damaged("an unknown node kind")
        }
        let parent = try Self.optional(Array(try reader.bytes(16)), NodeID.self)
        let key = try reader.string()
        guard OrderKey.isValid(key) else { throw reader.damaged("a malformed order key") }
        let title = try reader.string()
        guard (1...WritingLimits.maximumNameBytes).contains(title.utf8.count) else { throw reader.damaged("a title out of range") }
        let snapshot = try Self.optional(Array(try reader.bytes(16)), SnapshotID.self)
        guard (kind == .scene) == (snapshot != nil) else { throw reader.damaged("a document without a version, or a folder with one") }
        return ProjectSnapshotNode(id: id, kind: kind, parent: parent, orderKey: key, title: title, snapshot: snapshot)
    }

    private static func optional<Entity>(_ bytes: [UInt8], _: WritingID<Entity>.Type) throws(WritingError) -> WritingID<Entity>? {
        bytes == none ? nil : try WritingID<Entity>.parsed(bytes)
    }

    func encoded() -> [UInt8] {
        var out: [UInt8] = [Self.version] + project.bytes
        ByteReader.appendLength(nodes.count, &out)
        for node in nodes {
            out += node.id.bytes + [node.kind == .chapter ? 1 : 2] + (node.parent?.bytes ?? Self.none)
            ByteReader.appendString(node.orderKey, &out)
            ByteReader.appendString(node.title, &out)
            out += node.snapshot?.bytes ?? Self.none
        }
        return out
    }

    func parts() -> [[UInt8]] { SnapshotRecord.split(encoded()) }
}
