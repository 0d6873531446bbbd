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
///
/// An entry's value decodes by §14.5 exactly (version 1; its slots its kind's, in order, each once),
/// is at most `WritingLimits.maximumBlockBytes`, and its name, like the project's, is a title as the
/// writing store keeps it (`WritingStore.isKeptName`); a time is at most 2^63 − 1. Anything else is
/// `.malformedRecord`.
enum ProjectOperationCodec {
    static let entryCode: UInt8 = 9
    static let projectCode: UInt8 = 10
    static let codes: Set<UInt8> = [entryCode, projectCode]
    static let kinds: [EntryKind] = [.character, .place, .plotBeat, .snippet]

    // MARK: Encoding

    static func encode(_ operation: ProjectOperation, to out: inout [UInt8]) {
        switch operation {
        case .entry(let id, .removed):
            out += [entryCode] + id.bytes + [0]
        case .entry(let id, .present(let entry)):
            out += [entryCode] + id.bytes + [1, code(of: entry.kind)]
            SyncByteReader.append(entry.orderKey, lengthSize: 1, to: &out)
            VersionOperationCodec.appendBytes(entry.syncValue, to: &out)
        case .name(let name):
            out += [projectCode, 1]
            SyncByteReader.append(name, lengthSize: 2, to: &out)
        case .archived(let time):
            out += [projectCode, 2]
            SyncByteReader.append(UInt64(time.map { max(1, $0) } ?? 0), size: 8, to: &out)
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
        guard code == entryCode else { return try parseField(&reader) }
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
