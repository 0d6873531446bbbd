// fuzz-sources: Sources/AuditChain
// fuzz-sources: Sources/PrivilegedSession
// fuzz-sources: Sources/Registers
// fuzz-sources: Sources/Writing
// libFuzzer target: a branch's sealed value (SECURITY.md §15.3), read back from a sealed record a
// damaged or hostile vault file may hold: it must refuse or succeed without trapping; one that parses
// encodes back to exactly its bytes, names the document and base it was given, and carries a whole
// document (its content decodes and encodes back to the same bytes); its parts rebuild it. The
// proposed content it carries, as the base of two deletions, merges without trapping and keeps every
// other block once.
private let document = try! NodeID(bytes: [UInt8](repeating: 3, count: 16))
private let base = try! SnapshotID(bytes: [UInt8](repeating: 4, count: 16))
/// A valid header in front of the input, so that the fuzzer reaches the content decoder at once.
private let header: [UInt8] = [BranchRecord.version] + document.bytes + base.bytes

private func checkBranch(_ bytes: [UInt8]) {
    guard let record = try? BranchRecord(parsing: bytes) else { return }
    guard record.encoded() == bytes else { fatalError("a branch record did not round-trip") }
    guard record.document.bytes == Array(bytes[1..<17]), record.base.bytes == Array(bytes[17..<33]) else {
        fatalError("a branch record names another document or base than its bytes")
    }
    guard let content = try? SnapshotContent.decode(record.content) else { fatalError("a branch parsed without a whole document") }
    guard SnapshotContent.encode(content) == record.content else { fatalError("a branch's content did not round-trip") }
    guard record.parts().joined().elementsEqual(bytes) else { fatalError("a branch's parts do not rebuild it") }
    checkMerge(content)
}

/// The proposal as a base, one side dropping its first block and the other its last: the merge never
/// traps, and a clean one of blocks with distinct ids drops exactly those two (no block lost or held
/// twice); blocks with a repeated id are never merged into a document that holds one twice.
private func checkMerge(_ proposal: DocumentContent) {
    let ours = DocumentContent(blocks: Array(proposal.blocks.dropFirst()))
    let theirs = DocumentContent(blocks: Array(proposal.blocks.dropLast()))
    guard let merged = try? BranchMerge.merge(base: proposal, ours: ours, theirs: theirs) else { return }
    let distinct = Set(proposal.blocks.map(\.id)).count == proposal.blocks.count
    if distinct, merged.blocks != Array(proposal.blocks.dropFirst().dropLast()) {
        fatalError("a clean merge of two deletions kept or lost another block")
    }
    if !distinct, merged != ours, merged != theirs, Set(merged.blocks.map(\.id)).count != merged.blocks.count {
        fatalError("a merge holds a block twice")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func branchRecordFuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    checkBranch(bytes)
    checkBranch(header + bytes)
    checkBranch(header + [SnapshotContent.version] + bytes)
    return 0
}
