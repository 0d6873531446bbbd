// fuzz-sources: Sources/AuditChain
// fuzz-sources: Sources/PrivilegedSession
// fuzz-sources: Sources/Registers
// fuzz-sources: Sources/Writing/Model
// fuzz-sources: Sources/Writing/Store
// fuzz-sources: Sources/Writing/Versions
// fuzz-sources: Sources/Writing/Events
// fuzz-sources: Sources/Writing/Search
// fuzz-sources: Sources/Writing/Export
// fuzz-sources: Sources/Writing/WritingAuditActions.swift
// fuzz-sources: Sources/Writing/WritingError.swift
// fuzz-sources: Sources/Writing/WritingLimits.swift
// (Sources/Writing without Import/, which this parser does not need: fewer sources to build.)
// libFuzzer target: a project snapshot's sealed value (SECURITY.md §15.2). A damaged value must be
// refused without trapping; one that parses lists each node once, after its folder, a version for
// each document and none for a folder, and encodes back to exactly its bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func projectSnapshotRecordFuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = [UInt8](UnsafeBufferPointer(start: data, count: count))
    guard let record = try? ProjectSnapshotRecord(parsing: bytes) else { return 0 }
    var seen = Set<NodeID>()
    for node in record.nodes {
        guard seen.insert(node.id).inserted, node.parent.map(seen.contains) ?? true,
              (node.kind == .scene) == (node.snapshot != nil), OrderKey.isValid(node.orderKey) else {
            fatalError("a project snapshot with a node twice, before its folder, or a wrong version parsed")
        }
    }
    guard record.encoded() == bytes else { fatalError("a parsed project snapshot did not encode to its bytes") }
    return 0
}
