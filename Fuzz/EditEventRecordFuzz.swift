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
// libFuzzer target: an edit event's sealed value (SECURITY.md §15.5). A value comes out of the vault
// file, so a damaged one must be refused without trapping; one that parses is within its bounds, lists
// each document once, and encodes back to exactly its bytes (the encoding is canonical).
@_cdecl("LLVMFuzzerTestOneInput")
public func editEventRecordFuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = [UInt8](UnsafeBufferPointer(start: data, count: count))
    guard let record = try? EditEventRecord(parsing: bytes) else { return 0 }
    guard (1...WritingSessionRule.maximumDocuments).contains(record.documents.count),
          Set(record.documents.map(\.document)).count == record.documents.count else {
        fatalError("an edit event past its bounds, or with a document twice, parsed")
    }
    guard record.encoded() == bytes else { fatalError("a parsed edit event did not encode to its bytes") }
    return 0
}
