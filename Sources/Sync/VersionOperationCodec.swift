import CryptoVault
import Writing

/// The encoding of operations 0x06 to 0x08 inside a change record (SECURITY.md §19.2), and their
/// strict parser (the rest of the record is `ChangeRecordCodec`'s):
///
///     operation  = 0x06 snapshot:16 document:16 origin:u8 title:str16 device:16 createdAt:u64be
///                       digest:32 content
///                | 0x07 branch:16 document:16 change
///                | 0x08 event:16 device:16 startedAt:u64be lastEditAt:u64be ended:u8 (0 or 1)
///                       edits:u32be (≥ 1) count:u32be (1 to 4096) (document:16 words:i32be)*
///     origin     = 1 automatic | 2 titled | 3 restore | 4 adopt | 5 revert | 6 discard
///     content    = 0x01 length:u32be bytes            (the content, §15.2; SHA-256 = digest)
///                | 0x02 base:16 length:u32be bytes    (a snapshot delta, §15.1, from base's content)
///                | 0x03 form:u8 (1 content, 2 delta) [form 2: base:16] length:u32be count:u16be (1 to 64)
///                       digest:32* (distinct)         (carried in count 0x0C parts, joined in order)
///                | 0x0C snapshot:16 length:u32be bytes (1 to 3,145,728: one part, named by its SHA-256)
///     change     = 0x01 kind:u8 base:16 provenance:str16 createdAt:u64be length:u32be delta
///                | 0x02 decision:u8 decidedAt:u64be before:16 version:16
///     kind       = 1 ai-suggestion | 2 research-insert | 3 sync-conflict | 4 manual
///     decision   = 1 adopt (before, version: the adoption's two snapshots, not zero)
///                | 2 discard | 3 revert (before, version: 16 zero bytes each)
///
/// A title is present exactly when the origin is titled; a title and a provenance are 1 to 512 bytes
/// of NFC with no control character and no space at either end (as a node's title); times are at most 2^63 − 1; a whole
/// content decodes (§15.2) and hashes to the digest; a delta parses (§15.1, canonical); a delta's
/// base is not the snapshot itself; an event's first edit is not after its last and its documents
/// are distinct. Anything else is `.malformedRecord`.
enum VersionOperationCodec {
    static let snapshotCode: UInt8 = 6
    static let branchCode: UInt8 = 7
    static let editEventCode: UInt8 = 8
    static let snapshotPartCode: UInt8 = 12
    static let codes: Set<UInt8> = [snapshotCode, branchCode, editEventCode, snapshotPartCode]
    /// A part holds at most this many bytes (3 MiB: with its record's other bytes, under 4 MiB).
    static let maximumPartBytes = 3 << 20
    /// A snapshot joins at most this many parts, `maximumPartsLength` bytes in all (a document is
    /// at most 16 MiB, §14.4; its content or a delta a little more).
    static let maximumParts = 64
    static let maximumPartsLength = 64 << 20
    static let maximumDocuments = 4096
    static let origins: [SnapshotOrigin] = [.automatic, .titled, .restore, .adopt, .revert, .discard]
    static let kinds: [BranchKind] = [.aiSuggestion, .researchInsert, .syncConflict, .manual]
    static let none = [UInt8](repeating: 0, count: 16)

    // MARK: Encoding

    static func encode(_ operation: VersionOperation, to out: inout [UInt8]) throws(SyncError) {
        switch operation {
        case .snapshot(let snapshot): try encode(snapshot, to: &out)
        case .branch(let branch):
            out.append(branchCode)
            out += branch.id.bytes + branch.document.bytes + [1, code(of: branch.kind)] + branch.base.bytes
            try SyncByteReader.append(branch.provenance, lengthSize: 2, to: &out)
            SyncByteReader.append(UInt64(branch.createdAt), size: 8, to: &out)
            appendBytes(branch.delta, to: &out)
        case .decision(let decision):
            out.append(branchCode)
            out += decision.branch.bytes + decision.document.bytes + [2, decision.decision.rawValue]
            SyncByteReader.append(UInt64(decision.decidedAt), size: 8, to: &out)
            out += (decision.before?.bytes ?? none) + (decision.version?.bytes ?? none)
        case .editEvent(let event): encode(event, to: &out)
        case .snapshotPart(let part):
            out.append(snapshotPartCode)
            out += part.snapshot.bytes
            appendBytes(part.bytes, to: &out)
        }
    }

    static func encode(_ snapshot: SyncedSnapshot, to out: inout [UInt8]) throws(SyncError) {
        out.append(snapshotCode)
        out += snapshot.id.bytes + snapshot.document.bytes + [code(of: snapshot.origin)]
        try SyncByteReader.append(snapshot.title ?? "", lengthSize: 2, to: &out)
        out += snapshot.deviceID.bytes
        SyncByteReader.append(UInt64(snapshot.createdAt), size: 8, to: &out)
        out += snapshot.digest
        switch snapshot.payload {
        case .whole(let content):
            out.append(1)
            appendBytes(content, to: &out)
        case .delta(let base, let delta):
            out.append(2)
            out += base.bytes
            appendBytes(delta, to: &out)
        case .parts(let base, let length, let digests):
            out += [3, base == nil ? 1 : 2]
            if let base { out += base.bytes }
            SyncByteReader.append(UInt64(length), size: 4, to: &out)
            SyncByteReader.append(UInt64(digests.count), size: 2, to: &out)
            for digest in digests { out += digest }
        }
    }

    static func encode(_ event: SyncedEditEvent, to out: inout [UInt8]) {
        out.append(editEventCode)
        out += event.id.bytes + event.deviceID.bytes
        SyncByteReader.append(UInt64(event.startedAt), size: 8, to: &out)
        SyncByteReader.append(UInt64(event.lastEditAt), size: 8, to: &out)
        out.append(event.endedAt == nil ? 0 : 1)
        SyncByteReader.append(UInt64(event.edits), size: 4, to: &out)
        SyncByteReader.append(UInt64(event.documents.count), size: 4, to: &out)
        for document in event.documents {
            out += document.document.bytes
            SyncByteReader.append(UInt64(UInt32(bitPattern: document.words)), size: 4, to: &out)
        }
    }

    static func appendBytes(_ bytes: [UInt8], to out: inout [UInt8]) {
        SyncByteReader.append(UInt64(bytes.count), size: 4, to: &out)
        out += bytes
    }

    /// Exhaustive, so an origin added to the store without a code here fails to compile, not to run.
    static func code(of origin: SnapshotOrigin) -> UInt8 {
        switch origin {
        case .automatic: 1
        case .titled: 2
        case .restore: 3
        case .adopt: 4
        case .revert: 5
        case .discard: 6
        }
    }
    static func code(of kind: BranchKind) -> UInt8 { UInt8(kinds.firstIndex(of: kind)! + 1) }

    // MARK: Parsing

    /// Parses the operation whose code `code` was just read.
    static func parse(_ code: UInt8, _ reader: inout SyncByteReader) throws(SyncError) -> VersionOperation {
        switch code {
        case snapshotCode: return .snapshot(try parseSnapshot(&reader))
        case branchCode: return try parseBranchChange(&reader)
        case snapshotPartCode: return .snapshotPart(try parseSnapshotPart(&reader))
        default: return .editEvent(try parseEditEvent(&reader))
        }
    }

    static func parseSnapshotPart(_ reader: inout SyncByteReader) throws(SyncError) -> SnapshotPart {
        let snapshot: SnapshotID = try ChangeRecordCodec.identifier(&reader)
        let length = Int(try reader.integer(4))
        guard (1...maximumPartBytes).contains(length) else { throw SyncByteReader.malformed("a snapshot part of \(length) bytes (1 to 3 MiB)") }
        return SnapshotPart(snapshot: snapshot, bytes: try reader.take(length))
    }

    /// Form 0x03: the parts a snapshot's payload is joined from (SECURITY.md §19.2); what they join
    /// to is checked when they are (`VersionHistory.check`), as the parts are in other operations.
    static func parseParts(of id: SnapshotID, _ reader: inout SyncByteReader) throws(SyncError) -> SnapshotPayload {
        let form = try reader.byte()
        guard form == 1 || form == 2 else { throw SyncByteReader.malformed("an unknown form of a snapshot in parts") }
        var base: SnapshotID? = nil
        if form == 2 {
            let from: SnapshotID = try ChangeRecordCodec.identifier(&reader)
            guard from != id else { throw SyncByteReader.malformed("a snapshot delta from itself") }
            base = from
        }
        let length = Int(try reader.integer(4)), count = Int(try reader.integer(2))
        guard (1...maximumPartsLength).contains(length), (1...maximumParts).contains(count), count <= length,
              length <= count * maximumPartBytes, count * 32 <= reader.remaining else {
            throw SyncByteReader.malformed("a snapshot in \(count) parts of \(length) bytes (1 to 64 parts of at most 3 MiB, 64 MiB in all)")
        }
        var digests: [[UInt8]] = [], named = Set<[UInt8]>()
        for _ in 0..<count {
            let digest = try reader.take(32)
            // A part named twice would be joined twice: a payload larger than the parts sent for it.
            guard named.insert(digest).inserted else { throw SyncByteReader.malformed("a snapshot in parts naming one part twice") }
            digests.append(digest)
        }
        return .parts(base: base, length: length, digests: digests)
    }

    static func parseSnapshot(_ reader: inout SyncByteReader) throws(SyncError) -> SyncedSnapshot {
        let id: SnapshotID = try ChangeRecordCodec.identifier(&reader), document: NodeID = try ChangeRecordCodec.identifier(&reader)
        let originCode = Int(try reader.byte())
        guard (1...origins.count).contains(originCode) else { throw SyncByteReader.malformed("an unknown snapshot origin") }
        let origin = origins[originCode - 1]
        let title = try reader.string(lengthSize: 2, maximum: WritingLimits.maximumNameBytes)
        if origin == .titled { try checkName(title, "a snapshot title") } else if !title.isEmpty {
            throw SyncByteReader.malformed("a title on a snapshot that is not titled")
        }
        let device: AuditDeviceID = try ChangeRecordCodec.identifier(&reader)
        let createdAt = try parseTime(&reader)
        let digest = try reader.take(32)
        let payload: SnapshotPayload
        switch try reader.byte() {
        case 1:
            let content = try bytes(&reader)
            do { _ = try SnapshotContent.decode(content) } catch { throw SyncByteReader.malformed("a snapshot content: \(error.message)") }
            guard SHA256.hash(content) == digest else { throw SyncByteReader.malformed("a snapshot content that is not its digest's") }
            payload = .whole(content)
        case 2:
            let base: SnapshotID = try ChangeRecordCodec.identifier(&reader)
            guard base != id else { throw SyncByteReader.malformed("a snapshot delta from itself") }
            payload = .delta(base: base, try delta(&reader))
        case 3: payload = try parseParts(of: id, &reader)
        default: throw SyncByteReader.malformed("an unknown snapshot content form")
        }
        return SyncedSnapshot(id: id, document: document, origin: origin, title: origin == .titled ? title : nil, deviceID: device,
                              createdAt: createdAt, digest: digest, payload: payload)
    }

    static func parseBranchChange(_ reader: inout SyncByteReader) throws(SyncError) -> VersionOperation {
        let id: BranchID = try ChangeRecordCodec.identifier(&reader), document: NodeID = try ChangeRecordCodec.identifier(&reader)
        switch try reader.byte() {
        case 1:
            let kindCode = Int(try reader.byte())
            guard (1...kinds.count).contains(kindCode) else { throw SyncByteReader.malformed("an unknown branch kind") }
            let base: SnapshotID = try ChangeRecordCodec.identifier(&reader)
            let provenance = try reader.string(lengthSize: 2, maximum: WritingLimits.maximumNameBytes)
            try checkName(provenance, "a provenance")
            let createdAt = try parseTime(&reader)
            return .branch(SyncedBranch(id: id, document: document, kind: kinds[kindCode - 1], base: base, provenance: provenance,
                                        createdAt: createdAt, delta: try delta(&reader)))
        case 2:
            guard let decision = BranchDecision(rawValue: try reader.byte()) else { throw SyncByteReader.malformed("an unknown branch decision") }
            let decidedAt = try parseTime(&reader)
            let before = try optionalSnapshot(&reader), version = try optionalSnapshot(&reader)
            let shape = (before != nil, version != nil)
            guard shape == (decision == .adopt, decision == .adopt) else {
                throw SyncByteReader.malformed("a \(decision) decision naming the wrong snapshots")
            }
            return .decision(SyncedDecision(branch: id, document: document, decision: decision, decidedAt: decidedAt, before: before, version: version))
        default: throw SyncByteReader.malformed("an unknown branch change")
        }
    }

    static func parseEditEvent(_ reader: inout SyncByteReader) throws(SyncError) -> SyncedEditEvent {
        let id: EditEventID = try ChangeRecordCodec.identifier(&reader), device: AuditDeviceID = try ChangeRecordCodec.identifier(&reader)
        let startedAt = try parseTime(&reader), lastEditAt = try parseTime(&reader)
        guard startedAt <= lastEditAt else { throw SyncByteReader.malformed("an edit event whose first edit is after its last") }
        let ended = try reader.byte()
        guard ended <= 1 else { throw SyncByteReader.malformed("an edit event neither open nor ended") }
        let edits = try reader.integer(4)
        guard edits >= 1 else { throw SyncByteReader.malformed("an edit event of no edits") }
        let count = Int(try reader.integer(4))
        guard (1...maximumDocuments).contains(count), count * 20 <= reader.remaining else {
            throw SyncByteReader.malformed("an edit event of \(count) documents (1 to \(maximumDocuments))")
        }
        var documents: [EditedDocument] = [], seen = Set<NodeID>()
        for _ in 0..<count {
            let document: NodeID = try ChangeRecordCodec.identifier(&reader)
            guard seen.insert(document).inserted else { throw SyncByteReader.malformed("an edit event listing a document twice") }
            documents.append(EditedDocument(document: document, words: Int32(bitPattern: UInt32(try reader.integer(4)))))
        }
        return SyncedEditEvent(id: id, deviceID: device, startedAt: startedAt, lastEditAt: lastEditAt, endedAt: ended == 1 ? lastEditAt : nil,
                               edits: Int(edits), documents: documents)
    }

    /// A name as the writing store keeps it (NFC, no control character, no space at either end),
    /// as a node's title is read (`WritingStore.isKeptName`): one it would refuse never reaches it.
    static func checkName(_ name: String, _ role: String) throws(SyncError) {
        guard WritingStore.isKeptName(name) else {
            throw SyncByteReader.malformed("\(role) that is empty, not NFC, holds control characters or starts or ends with a space")
        }
    }

    static func parseTime(_ reader: inout SyncByteReader) throws(SyncError) -> Int64 {
        let value = try reader.integer(8)
        guard value <= UInt64(Int64.max) else { throw SyncByteReader.malformed("a time past 2^63 - 1") }
        return Int64(value)
    }

    static func bytes(_ reader: inout SyncByteReader) throws(SyncError) -> [UInt8] {
        try reader.take(Int(try reader.integer(4)))
    }

    static func delta(_ reader: inout SyncByteReader) throws(SyncError) -> [UInt8] {
        let bytes = try bytes(&reader)
        do { _ = try SnapshotDelta(parsing: bytes) } catch { throw SyncByteReader.malformed("a snapshot delta: \(error.message)") }
        return bytes
    }

    static func optionalSnapshot(_ reader: inout SyncByteReader) throws(SyncError) -> SnapshotID? {
        let bytes = try reader.take(16)
        return bytes == none ? nil : try SnapshotID.parsedForSync(bytes)
    }
}
