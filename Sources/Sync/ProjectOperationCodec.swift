import CryptoVault
import Writing

/// The encoding of operations 0x09 and 0x0A inside a change record (SECURITY.md §19.2), and their
/// strict parser (the rest of the record is `ChangeRecordCodec`'s):
///
///     operation   = 0x09 entry:16 entry-value
///                 | 0x0A field
///     entry-value = 0x00                                          (removed)
///                 | 0x01 kind:u8 order-key:str8 length:u32be value  (value: §14.5's sealed entry value)
///     kind        = 1 character | 2 place | 3 plot-beat | 4 snippet
///     field       = 0x01 name:str16                               (the project renamed)
///                 | 0x02 archivedAt:u64be                         (0: brought back; else archived then)
///     operation   = 0x0B snapshot:16 origin:u8 (1 automatic, 2 titled, 3 restore) title:str16 device:16
///                       createdAt:u64be count:u32be node*
///     node        = id:16 kind:u8 (1 folder, 2 document) parent:16 (zero: the top level) order-key:str8 title:str16
///                   version:16 (a document's snapshot; zero for a folder)
///
/// An entry's value decodes by §14.5 exactly (version 1; its slots its kind's, in order, each once),
/// is at most `WritingLimits.maximumBlockBytes`, and its name, like the project's, is a title as the
/// writing store keeps it (`WritingStore.isKeptName`); a time is at most 2^63 − 1. Anything else is
/// `.malformedRecord`.
enum ProjectOperationCodec {
    static let entryCode: UInt8 = 9
    static let projectCode: UInt8 = 10
    static let projectSnapshotCode: UInt8 = 11
    static let codes: Set<UInt8> = [entryCode, projectCode, projectSnapshotCode]
    static let origins: [ProjectSnapshotOrigin] = [.automatic, .titled, .restore]
    static let zero = [UInt8](repeating: 0, count: 16)
    static let kinds: [EntryKind] = [.character, .place, .plotBeat, .snippet]

    // MARK: Encoding

    static func encode(_ operation: ProjectOperation, to out: inout [UInt8]) throws(SyncError) {
        switch operation {
        case .entry(let id, .removed):
            out += [entryCode] + id.bytes + [0]
        case .entry(let id, .present(let entry)):
            out += [entryCode] + id.bytes + [1, code(of: entry.kind)]
            try SyncByteReader.append(entry.orderKey, lengthSize: 1, to: &out)
            VersionOperationCodec.appendBytes(entry.syncValue, to: &out)
        case .name(let name):
            out += [projectCode, 1]
            try SyncByteReader.append(name, lengthSize: 2, to: &out)
        case .archived(let time):
            out += [projectCode, 2]
            SyncByteReader.append(UInt64(time.map { max(1, $0) } ?? 0), size: 8, to: &out)
        case .projectSnapshot(let snapshot):
            out += [projectSnapshotCode] + snapshot.id.bytes + [UInt8(origins.firstIndex(of: snapshot.origin)! + 1)]
            try SyncByteReader.append(snapshot.title ?? "", lengthSize: 2, to: &out)
            out += snapshot.deviceID.bytes
            SyncByteReader.append(UInt64(snapshot.createdAt), size: 8, to: &out)
            SyncByteReader.append(UInt64(snapshot.nodes.count), size: 4, to: &out)
            for node in snapshot.nodes {
                out += node.id.bytes + [node.kind == .chapter ? 1 : 2] + (node.parent?.bytes ?? zero)
                try SyncByteReader.append(node.orderKey, lengthSize: 1, to: &out)
                try SyncByteReader.append(node.title, lengthSize: 2, to: &out)
                out += node.snapshot?.bytes ?? zero
            }
        }
    }

    /// Exhaustive, so a kind added to the store without a code here fails to compile, not to run.
    static func code(of kind: EntryKind) -> UInt8 {
        switch kind {
        case .character: 1
        case .place: 2
        case .plotBeat: 3
        case .snippet: 4
        }
    }

    // MARK: Parsing

    /// Parses the operation whose code `code` was just read.
    static func parse(_ code: UInt8, _ reader: inout SyncByteReader) throws(SyncError) -> ProjectOperation {
        if code == projectCode { return try parseField(&reader) }
        if code == projectSnapshotCode { return .projectSnapshot(try parseProjectSnapshot(&reader)) }
        let id: EntryID = try ChangeRecordCodec.identifier(&reader)
        switch try reader.byte() {
        case 0: return .entry(id, .removed)
        case 1:
            let kindCode = Int(try reader.byte())
            guard (1...kinds.count).contains(kindCode) else { throw SyncByteReader.malformed("an unknown entry kind") }
            let orderKey = try ChangeRecordCodec.parseOrderKey(&reader)
            let length = Int(try reader.integer(4))
            guard length <= WritingLimits.maximumBlockBytes else { throw SyncByteReader.malformed("an entry over \(WritingLimits.maximumBlockBytes) bytes") }
            let value = try reader.take(length)
            let entry: ProjectEntry
            do { entry = try ProjectEntry(syncValue: value, id: id, kind: kinds[kindCode - 1], orderKey: orderKey) } catch {
                throw SyncByteReader.malformed("an entry: \(error.message)")
            }
            try VersionOperationCodec.checkName(entry.name, "an entry's name")
            return .entry(id, .present(entry))
        default: throw SyncByteReader.malformed("an unknown entry value")
        }
    }

    /// A node is at least 54 bytes: a count past what is left is refused before any work. Each node
    /// once, after its folder (a folder's parent a folder listed before); a document names its version.
    static func parseProjectSnapshot(_ reader: inout SyncByteReader) throws(SyncError) -> SyncedProjectSnapshot {
        let id: ProjectSnapshotID = try ChangeRecordCodec.identifier(&reader)
        let originCode = Int(try reader.byte())
        guard (1...origins.count).contains(originCode) else { throw SyncByteReader.malformed("an unknown project snapshot origin") }
        let origin = origins[originCode - 1]
        let title = try reader.string(lengthSize: 2, maximum: WritingLimits.maximumNameBytes)
        if origin == .titled { try VersionOperationCodec.checkName(title, "a project snapshot title") } else if !title.isEmpty {
            throw SyncByteReader.malformed("a title on a project snapshot that is not titled")
        }
        let device: AuditDeviceID = try ChangeRecordCodec.identifier(&reader)
        let createdAt = try VersionOperationCodec.parseTime(&reader)
        let count = Int(try reader.integer(4))
        guard count <= reader.remaining / 54 else { throw SyncByteReader.malformed("\(count) project snapshot nodes in \(reader.remaining) bytes") }
        var nodes: [ProjectSnapshotNode] = [], folders = Set<NodeID>(), seen = Set<NodeID>()
        for _ in 0..<count {
            let node: NodeID = try ChangeRecordCodec.identifier(&reader)
            let kind: NodeKind
            switch try reader.byte() {
            case 1: kind = .chapter
            case 2: kind = .scene
            default: throw SyncByteReader.malformed("an unknown node kind")
            }
            let parentBytes = try reader.take(16)
            let parent: NodeID? = parentBytes == zero ? nil : try NodeID.parsedForSync(parentBytes)
            let orderKey = try ChangeRecordCodec.parseOrderKey(&reader)
            let nodeTitle = try reader.string(lengthSize: 2, maximum: WritingLimits.maximumNameBytes)
            try VersionOperationCodec.checkName(nodeTitle, "a title")
            let versionBytes = try reader.take(16)
            let version: SnapshotID? = versionBytes == zero ? nil : try SnapshotID.parsedForSync(versionBytes)
            guard (kind == .scene) == (version != nil) else { throw SyncByteReader.malformed("a document without a version, or a folder with one") }
            guard seen.insert(node).inserted, parent.map(folders.contains) ?? true else {
                throw SyncByteReader.malformed("a project snapshot node listed twice or before its folder")
            }
            if kind == .chapter { folders.insert(node) }
            nodes.append(ProjectSnapshotNode(synced: node, kind: kind, parent: parent, orderKey: orderKey, title: nodeTitle, snapshot: version))
        }
        return SyncedProjectSnapshot(id: id, origin: origin, title: origin == .titled ? title : nil, deviceID: device, createdAt: createdAt,
                                     nodes: nodes)
    }

    static func parseField(_ reader: inout SyncByteReader) throws(SyncError) -> ProjectOperation {
        switch try reader.byte() {
        case 1:
            let name = try reader.string(lengthSize: 2, maximum: WritingLimits.maximumNameBytes)
            try VersionOperationCodec.checkName(name, "a project name")
            return .name(name)
        case 2:
            let time = try VersionOperationCodec.parseTime(&reader)
            return .archived(time == 0 ? nil : time)
        default: throw SyncByteReader.malformed("an unknown project field")
        }
    }
}
