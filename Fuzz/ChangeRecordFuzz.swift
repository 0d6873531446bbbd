// fuzz-sources: Sources/AuditChain
// fuzz-sources: Sources/PrivilegedSession
// fuzz-sources: Sources/Registers
// fuzz-sources: Sources/Writing
// fuzz-sources: Sources/Sync
// libFuzzer target: a change record (SECURITY.md §19.2) as a hostile paired device may send it. The
// parser must refuse or succeed without trapping; a record that parses encodes back to exactly its
// bytes; and a replica that receives it (signature unchecked here: the fuzzer cannot sign) must
// refuse it with a reason or hold it, never trap or change what it shows for a record it refused.
private let project = try! ProjectID(bytes: [UInt8](repeating: 1, count: 16))
private let device = try! DeviceID(bytes: [UInt8](repeating: 2, count: 16))
/// A valid header and one parent in front of the input, so the fuzzer reaches the operations at once.
private let header: [UInt8] = ChangeRecordCodec.magic + [ChangeRecordCodec.version] + project.bytes + device.bytes
    + [0, 0, 0, 0, 0, 0, 0, 1] + [0, 0, 0, 0, 0, 0, 0, 2] + [0]

private func check(_ bytes: [UInt8]) {
    guard let record = try? ChangeRecordCodec.parse(bytes) else { return }
    let body = ChangeRecordCodec.body(project: record.project, device: record.device, counter: record.counter, lamport: record.lamport,
                                      parents: record.parents, operations: record.operations)
    guard body + record.signature == bytes else { fatalError("a change record did not round-trip") }
    var replica = SyncReplica(project: project, author: nil, devices: [device: [UInt8](repeating: 0, count: 32)])
    if case .applied = replica.receive(record) { fatalError("a record with a signature nobody made was applied") }
    guard replica.recordCount == 0, replica.documents.isEmpty else { fatalError("a refused record changed the replica") }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func changeRecordFuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    check(bytes)
    check(header + bytes)
    return 0
}
