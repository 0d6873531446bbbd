// fuzz-sources: Sources/AuditChain
// fuzz-sources: Sources/PrivilegedSession
// fuzz-sources: Sources/Registers
// fuzz-sources: Sources/Writing
// libFuzzer target: a snapshot's sealed value and what it carries (SECURITY.md §15.2): the record
// header, the content encoding and the delta. Each is read from a sealed record a damaged or hostile
// vault file may hold (the seal only proves who wrote it, not that they wrote it well), so each must
// refuse or succeed without trapping, and what parses must encode back to exactly its bytes (one
// encoding); a packed payload unpacks to exactly its stated size within the bound, or is refused,
// and DEFLATE gives back what it packed. A snapshot group (versions 3 and 4) and a compact delta parse
// strictly and write back what they read. A delta applies to any base without trapping, within the
// document bound, and the delta computed between two byte strings turns the first into the second.

/// A record header (keyframe, document 5…, sequence 1, no base, a zero digest) in front of the input,
/// so that the fuzzer reaches the payload without first finding a valid header: today's (the input
/// then begins with the packed size) and version 1's.
private let header: [UInt8] = [SnapshotRecord.version, SnapshotRecord.Form.keyframe.rawValue]
    + [UInt8](repeating: 5, count: 16) + [0, 0, 0, 1] + [UInt8](repeating: 0, count: 16 + 32)
private let unpackedHeader: [UInt8] = [SnapshotRecord.unpackedVersion] + header.dropFirst()

private func checkRecord(_ bytes: [UInt8]) {
    guard let record = try? SnapshotRecord(parsing: bytes) else { return }
    guard record.encoded() == bytes else { fatalError("a snapshot record did not round-trip") }
    guard record.sequence >= 1, record.base.count == 16, record.digest.count == 32 else { fatalError("a snapshot record past its bounds parsed") }
    // A packed payload unpacks to exactly its size, within the bound, or is refused.
    if case .packed(let size, _) = record.stored, let payload = try? record.payload() {
        guard payload.count == size, size <= WritingLimits.maximumDocumentBytes else { fatalError("a packed payload unpacked to another size") }
    }
    guard record.parts().joined().elementsEqual(bytes), record.parts().allSatisfy({ $0.count <= SnapshotRecord.partSize }) else {
        fatalError("a snapshot record's parts do not rebuild it")
    }
}

/// Packing any bytes and unpacking them gives them back.
private func checkPacking(_ bytes: [UInt8]) {
    guard (try? Deflate.unpack(Deflate.pack(bytes), size: bytes.count, limit: bytes.count)) == bytes else { fatalError("DEFLATE did not round-trip") }
}

private func checkContent(_ bytes: [UInt8]) {
    guard let content = try? SnapshotContent.decode(bytes) else { return }
    guard SnapshotContent.encode(content) == bytes else { fatalError("a snapshot content did not round-trip") }
}

private func checkDelta(_ bytes: [UInt8]) {
    guard let delta = try? SnapshotDelta(parsing: bytes) else { return }
    guard delta.serialized() == bytes else { fatalError("a snapshot delta did not round-trip") }
    for base in [[], Array(bytes.prefix(64)), bytes] {
        guard let patched = try? delta.apply(to: base) else { continue }
        guard patched.count <= WritingLimits.maximumDocumentBytes else { fatalError("a delta made a document past the bound") }
    }
}

/// A compact delta (version-4 groups) parses only in canonical form, writes back to exactly its bytes,
/// and is the same delta as its version-1 bytes.
private func checkCompactDelta(_ bytes: [UInt8]) {
    guard let delta = try? SnapshotDelta(compact: bytes[...]) else { return }
    guard delta.compact() == bytes else { fatalError("a compact snapshot delta did not round-trip") }
    guard (try? SnapshotDelta(parsing: delta.serialized())) == delta else { fatalError("a compact delta is not a canonical version-1 delta") }
}

/// A group of either version parses or is refused without trapping; what parses writes back to what
/// parses the same (the packed bytes are not canonical), with at least one member.
private func checkGroup(_ bytes: [UInt8]) {
    guard let group = try? SnapshotGroup(parsing: bytes) else { return }
    guard !group.members.isEmpty, let encoded = try? group.encoded(), (try? SnapshotGroup(parsing: encoded)) == group else {
        fatalError("a snapshot group did not round-trip")
    }
}

/// A group header (version 4, document 5…, sequence 1, no base, one member, a zero check) in front of the input.
private let groupHeader: [UInt8] = [SnapshotGroup.version, SnapshotGroup.form] + [UInt8](repeating: 5, count: 16) + [0, 0, 0, 1]
    + [UInt8](repeating: 0, count: 16) + [0, 0, 0, 1] + [UInt8](repeating: 0, count: SnapshotGroup.checkSize)

/// The input as two byte strings (split at its first zero byte): the delta between them, serialized
/// and parsed back, rebuilds the second from the first.
private func checkDeltaBetween(_ bytes: [UInt8]) {
    let split = bytes.firstIndex(of: 0) ?? bytes.count / 2
    let base = Array(bytes[..<split]), target = Array(bytes[min(bytes.count, split + 1)...])
    guard let delta = try? SnapshotDelta.between(base, target) else { fatalError("no delta between two small byte strings") }
    guard let parsed = try? SnapshotDelta(parsing: delta.serialized()), parsed == delta else { fatalError("a computed delta is not canonical") }
    guard (try? delta.apply(to: base)) == target else { fatalError("a computed delta does not rebuild its target") }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func snapshotRecordFuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    checkRecord(bytes)
    checkRecord(header + bytes)
    checkRecord(unpackedHeader + bytes)
    checkPacking(bytes)
    checkContent(bytes)
    checkContent([SnapshotContent.version] + bytes)
    checkDelta(bytes)
    checkDelta([SnapshotDelta.version] + bytes)
    checkDeltaBetween(bytes)
    checkCompactDelta(bytes)
    checkGroup(bytes)
    checkGroup(groupHeader + bytes)
    return 0
}
