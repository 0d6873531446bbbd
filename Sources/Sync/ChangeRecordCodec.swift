import CryptoVault
import Writing

/// The change record's one canonical encoding (SECURITY.md §19.2), and its strict, bounded parser:
///
///     record     = body signature:64
///     body       = "SVCR" version:u8 (2; 1 read) project:16 device:16 counter:u64be lamport:u64be
///                  parents:u8 hash:32*            (at most 64, strictly ascending)
///                  operations:u16be operation*    (1 to 4096)
///     operation  = 0x01 node:16 node-value
///                | 0x02 document:16 block:16 block-value
///                | 0x03 branch:16 document:16 block:16 losing:block-value winning:block-value
///                | 0x04 document:16 block:16 edits:u16be (1 to 4096) text-edit*
///                | 0x06 snapshot … | 0x07 branch … | 0x08 edit event …   (`VersionOperationCodec`)
///                | 0x09 entry … | 0x0A project field …                (`ProjectOperationCodec`)
///     node-value = 0x00                           (removed)
///                | 0x01 kind:u8 (1 folder, 2 document) parent:16 (16 zero bytes: the top level)
///                       order-key:str8 title:str16
///     block-value= 0x00                           (deleted)
///                | 0x01 order-key:str8 length:u32be block   (block: SECURITY.md §14.4; in 0x02 its text is empty)
///     text-edit  = 0x01 anchor text:str32           (insert: 1 to 983,040 bytes, after the anchor)
///                | 0x02 first:character last:character   (delete: first through last, as seen)
///     anchor     = 0x00                           (the block's start)
///                | 0x01 character
///     character  = device:16 counter:u64be offset:u32be
///     strN       = length:uN (big-endian) UTF-8 bytes
///
/// The signature is Ed25519 by the device over "SealedVault change record v1" 0x00 body. The whole
/// record is at most `maximumSize` (4 MiB − 64 KiB) bytes, checked before anything else is read; counters and
/// Lamport times are 1 to 2^63 - 1; order keys follow `OrderKey`'s grammar; titles are 1 to 512
/// bytes of NFC without control characters or a space at either end (`WritingStore.isKeptName`);
/// a block holds at most `WritingLimits.maximumBlockBytes` of text and cells, cells only in a
/// table. Nothing may follow the signature.
public enum ChangeRecordCodec {
    /// The body version written: 2, records made under the merge rule of block conflicts v2
    /// (SECURITY.md §19.2, §19.3). Version 1 (records stored before it) is read; its 0x03s are
    /// ignored (`ConflictClaims`), since their names are of the earlier rule.
    public static let version: UInt8 = 2
    static let readVersions: ClosedRange<UInt8> = 1...2
    public static let magic = Array("SVCR".utf8)
    /// 4 MiB less 64 KiB: a record this vault takes is one it can hand on, alone in a sync message
    /// with every other field of it (`SyncWire.batchBudget`, SECURITY.md §19.2, §19.9). A larger one
    /// would be stored here and then stop every exchange that had to send it.
    public static let maximumSize = 4 * 1024 * 1024 - 64 * 1024
    public static let maximumParents = 64
    public static let maximumOperations = 4096
    public static let maximumTextEdits = 4096
    /// The largest counter and Lamport time: the vault stores them as SQLite's signed 64-bit
    /// integers, and a device's next Lamport time (one more than the highest held) never overflows.
    public static let maximumTime = UInt64(Int64.max)
    static let signingLabel = Array("SealedVault change record v1".utf8) + [0]
    static let headerSize = 4 + 1 + 16 + 16 + 8 + 8

    static func signingInput(_ body: [UInt8]) -> [UInt8] { signingLabel + body }

    static func body(project: ProjectID, device: DeviceID, counter: UInt64, lamport: UInt64, parents: [[UInt8]],
                     operations: [ChangeOperation], version: UInt8 = version) throws(SyncError) -> [UInt8] {
        var out = magic + [version] + project.bytes + device.bytes
        SyncByteReader.append(counter, size: 8, to: &out)
        SyncByteReader.append(lamport, size: 8, to: &out)
        out.append(UInt8(parents.count))
        for parent in parents { out += parent }
        SyncByteReader.append(UInt64(operations.count), size: 2, to: &out)
        for operation in operations { try encode(operation, to: &out) }
        return out
    }

    // MARK: Encoding

    static func encode(_ operation: ChangeOperation, to out: inout [UInt8]) throws(SyncError) {
        switch operation {
        case .node(let id, let value):
            out.append(1)
            out += id.bytes
            try encode(value, to: &out)
        case .block(let document, let id, let value):
            out.append(2)
            out += document.bytes + id.bytes
            try encode(value, to: &out)
        case .conflict(let conflict):
            out.append(3)
            out += conflict.branch.bytes + conflict.document.bytes + conflict.block.bytes
            try encode(conflict.losing, to: &out)
            try encode(conflict.winning, to: &out)
        case .text(let document, let id, let edits):
            out.append(4)
            out += document.bytes + id.bytes
            SyncByteReader.append(UInt64(edits.count), size: 2, to: &out)
            for edit in edits { try encode(edit, to: &out) }
        case .version(let operation):
            try VersionOperationCodec.encode(operation, to: &out)
        case .project(let operation):
            try ProjectOperationCodec.encode(operation, to: &out)
        }
    }

    static func encode(_ edit: TextEdit, to out: inout [UInt8]) throws(SyncError) {
        switch edit {
        case .insert(let anchor, let text):
            out.append(1)
            if let anchor { out.append(1); encode(anchor, to: &out) } else { out.append(0) }
            try SyncByteReader.append(text, lengthSize: 4, to: &out)
        case .delete(let first, let last):
            out.append(2)
            encode(first, to: &out)
            encode(last, to: &out)
        }
    }

    static func encode(_ character: CharacterID, to out: inout [UInt8]) {
        out += character.device.bytes
        SyncByteReader.append(character.counter, size: 8, to: &out)
        SyncByteReader.append(UInt64(character.offset), size: 4, to: &out)
    }

    static func encode(_ value: NodeValue, to out: inout [UInt8]) throws(SyncError) {
        guard case .present(let kind, let parent, let orderKey, let title) = value else { out.append(0); return }
        out.append(1)
        out.append(kind == .chapter ? 1 : 2)
        out += parent?.bytes ?? [UInt8](repeating: 0, count: 16)
        try SyncByteReader.append(orderKey, lengthSize: 1, to: &out)
        try SyncByteReader.append(title, lengthSize: 2, to: &out)
    }

    public static func encode(_ value: BlockValue, to out: inout [UInt8]) throws(SyncError) {
        guard case .present(let orderKey, let block) = value else { out.append(0); return }
        out.append(1)
        try SyncByteReader.append(orderKey, lengthSize: 1, to: &out)
        let encoded = BlockEncoding.encode(block)
        SyncByteReader.append(UInt64(encoded.count), size: 4, to: &out)
        out += encoded
    }

    /// Whether a record can carry `operation`: it encodes, alone in a record it fits the size,
    /// and the parser takes it back (its bounds included).
    static func isCarried(_ operation: ChangeOperation) -> Bool {
        var bytes: [UInt8] = []
        guard (try? encode(operation, to: &bytes)) != nil, headerSize + 1 + 2 + bytes.count + Ed25519.signatureSize <= maximumSize else { return false }
        var reader = SyncByteReader(bytes)
        return (try? parseOperation(&reader)) != nil && reader.isAtEnd
    }

    // MARK: Parsing

    /// Parses a record, refusing anything outside the grammar above (`.malformedRecord`). The
    /// signature is parsed, not checked: that needs the device's key (`SyncReplica.receive`).
    public static func parse(_ bytes: [UInt8]) throws(SyncError) -> ChangeRecord {
        guard bytes.count <= maximumSize else { throw SyncByteReader.malformed("over \(maximumSize) bytes") }
        guard bytes.count >= headerSize + 1 + 2 + Ed25519.signatureSize else { throw SyncByteReader.malformed("too short") }
        var reader = SyncByteReader(Array(bytes.dropLast(Ed25519.signatureSize)))
        guard try reader.take(4) == magic else { throw SyncByteReader.malformed("not a change record (magic)") }
        guard readVersions.contains(try reader.byte()) else { throw SyncByteReader.malformed("an unknown version") }
        let project: ProjectID = try identifier(&reader)
        let device: DeviceID = try identifier(&reader)
        let counter = try reader.integer(8), lamport = try reader.integer(8)
        guard counter >= 1, lamport >= 1 else { throw SyncByteReader.malformed("a counter or Lamport time of 0") }
        guard counter <= maximumTime, lamport <= maximumTime else { throw SyncByteReader.malformed("a counter or Lamport time over 2^63 - 1") }
        let parents = try parseParents(&reader)
        let count = Int(try reader.integer(2))
        guard (1...maximumOperations).contains(count) else { throw SyncByteReader.malformed("\(count) operations (1 to \(maximumOperations))") }
        var operations: [ChangeOperation] = []
        for _ in 0..<count { operations.append(try parseOperation(&reader)) }
        guard reader.isAtEnd else { throw SyncByteReader.malformed("bytes after the last operation") }
        return ChangeRecord(project: project, device: device, counter: counter, lamport: lamport, parents: parents,
                            operations: operations, signature: Array(bytes.suffix(Ed25519.signatureSize)), encoded: bytes)
    }

    static func parseParents(_ reader: inout SyncByteReader) throws(SyncError) -> [[UInt8]] {
        let count = Int(try reader.byte())
        guard count <= maximumParents else { throw SyncByteReader.malformed("\(count) parents (at most \(maximumParents))") }
        var parents: [[UInt8]] = []
        for _ in 0..<count {
            let parent = try reader.take(32)
            if let last = parents.last, !last.lexicographicallyPrecedes(parent) {
                throw SyncByteReader.malformed("parents not in strictly ascending order")
            }
            parents.append(parent)
        }
        return parents
    }

    static func parseOperation(_ reader: inout SyncByteReader) throws(SyncError) -> ChangeOperation {
        switch try reader.byte() {
        case 1: return .node(try identifier(&reader), try parseNodeValue(&reader))
        case 2:
            let document: NodeID = try identifier(&reader), block: BlockID = try identifier(&reader)
            let value = try parseBlockValue(&reader, id: block)
            // A block's text is its characters (0x04): a written value carries none.
            guard value.block?.text.isEmpty ?? true else { throw SyncByteReader.malformed("a block value that carries text") }
            return .block(document: document, block, value)
        case 3:
            let branch: BranchID = try identifier(&reader), document: NodeID = try identifier(&reader)
            let block: BlockID = try identifier(&reader)
            let losing = try parseBlockValue(&reader, id: block), winning = try parseBlockValue(&reader, id: block)
            return .conflict(SyncConflict(branch: branch, document: document, block: block, losing: losing, winning: winning))
        case 4:
            let document: NodeID = try identifier(&reader), block: BlockID = try identifier(&reader)
            let count = Int(try reader.integer(2))
            guard (1...maximumTextEdits).contains(count) else { throw SyncByteReader.malformed("\(count) text edits (1 to \(maximumTextEdits))") }
            var edits: [TextEdit] = []
            for _ in 0..<count { edits.append(try parseTextEdit(&reader)) }
            return .text(document: document, block, edits)
        case let code where VersionOperationCodec.codes.contains(code): return .version(try VersionOperationCodec.parse(code, &reader))
        case let code where ProjectOperationCodec.codes.contains(code): return .project(try ProjectOperationCodec.parse(code, &reader))
        default: throw SyncByteReader.malformed("an unknown operation")
        }
    }

    static func parseTextEdit(_ reader: inout SyncByteReader) throws(SyncError) -> TextEdit {
        switch try reader.byte() {
        case 1:
            let anchor: CharacterID?
            switch try reader.byte() {
            case 0: anchor = nil
            case 1: anchor = try parseCharacter(&reader)
            default: throw SyncByteReader.malformed("an unknown anchor")
            }
            let text = try reader.string(lengthSize: 4, maximum: WritingLimits.maximumBlockBytes)
            guard !text.isEmpty else { throw SyncByteReader.malformed("an insert of no text") }
            return .insert(after: anchor, text: text)
        case 2:
            return .delete(first: try parseCharacter(&reader), last: try parseCharacter(&reader))
        default: throw SyncByteReader.malformed("an unknown text edit")
        }
    }

    static func parseCharacter(_ reader: inout SyncByteReader) throws(SyncError) -> CharacterID {
        let device: DeviceID = try identifier(&reader)
        let counter = try reader.integer(8)
        guard (1...maximumTime).contains(counter) else { throw SyncByteReader.malformed("a character of record 0 or over 2^63 - 1") }
        return CharacterID(device: device, counter: counter, offset: UInt32(try reader.integer(4)))
    }

    static func parseNodeValue(_ reader: inout SyncByteReader) throws(SyncError) -> NodeValue {
        switch try reader.byte() {
        case 0: return .removed
        case 1:
            let kind: NodeKind
            switch try reader.byte() {
            case 1: kind = .chapter
            case 2: kind = .scene
            default: throw SyncByteReader.malformed("an unknown node kind")
            }
            let parentBytes = try reader.take(16)
            let parent: NodeID? = parentBytes.allSatisfy { $0 == 0 } ? nil : try NodeID.parsedForSync(parentBytes)
            let orderKey = try parseOrderKey(&reader)
            let title = try reader.string(lengthSize: 2, maximum: WritingLimits.maximumNameBytes)
            // Exactly what the writing store keeps (NFC, no control character, no space at either
            // end): a title it would refuse must not reach it, where it would stop the receive.
            guard WritingStore.isKeptName(title) else {
                throw SyncByteReader.malformed("a title that is empty, not NFC, holds control characters or starts or ends with a space")
            }
            return .present(kind: kind, parent: parent, orderKey: orderKey, title: title)
        default: throw SyncByteReader.malformed("an unknown node value")
        }
    }

    static func parseBlockValue(_ reader: inout SyncByteReader, id: BlockID) throws(SyncError) -> BlockValue {
        switch try reader.byte() {
        case 0: return .deleted
        case 1:
            let orderKey = try parseOrderKey(&reader)
            let length = Int(try reader.integer(4))
            let block: Block
            do { block = try BlockEncoding.decode(try reader.take(length), id: id) } catch let error as WritingError {
                throw SyncByteReader.malformed("a block: \(error.message)")
            } catch { throw SyncByteReader.malformed("a block") }
            let bytes = block.text.utf8.count + block.rows.reduce(0) { $0 + $1.reduce(0) { $0 + $1.utf8.count } }
            guard bytes <= WritingLimits.maximumBlockBytes else { throw SyncByteReader.malformed("a block over \(WritingLimits.maximumBlockBytes) bytes") }
            guard block.kind == .table || block.rows.isEmpty else { throw SyncByteReader.malformed("cells in a block that is not a table") }
            return .present(orderKey: orderKey, block: block)
        default: throw SyncByteReader.malformed("an unknown block value")
        }
    }

    static func parseOrderKey(_ reader: inout SyncByteReader) throws(SyncError) -> String {
        let key = try reader.string(lengthSize: 1, maximum: 255)
        guard OrderKey.isValid(key) else { throw SyncByteReader.malformed("an order key outside its grammar") }
        return key
    }

    static func identifier<Kind>(_ reader: inout SyncByteReader) throws(SyncError) -> TypedIdentifier<Kind> {
        try TypedIdentifier<Kind>.parsedForSync(try reader.take(16))
    }
}

extension TypedIdentifier {
    static func parsedForSync(_ bytes: [UInt8]) throws(SyncError) -> Self {
        do { return try Self(bytes: bytes) } catch { throw SyncByteReader.malformed(error.message) }
    }
}
