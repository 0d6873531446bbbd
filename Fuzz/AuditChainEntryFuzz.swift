// fuzz-sources: Fuzz/Support/ByteEdits.swift
// fuzz-sources: Sources/AuditChain
// libFuzzer target: the audit entry decoder (SECURITY.md §8.2) reads bytes anyone with the vault file
// or an export may have written. It must refuse or accept any input without crashing, and what it
// accepts must be canonical: encoding the decoded entry gives back exactly the input, which decodes
// to the same entry, whose leaf hash is that of the input.
//
// An input whose first byte is even is decoded as it is (after that byte). One whose first byte is
// odd is a list of edits to a valid entry instead, so the fuzzer spends its time on the later fields
// without first having to find a whole valid layout: each 3 bytes (offset high, offset low, value)
// set one byte (an offset one past the end appends it), and a final lone byte cuts the entry to that
// length.

/// A valid entry with every field present: compartment, subject, two details, sealed details.
private let template: [UInt8] = AuditEntry(
    seq: 41, time: 1_764_000_000, deviceID: try! AuditDeviceID(bytes: [UInt8](repeating: 0xD1, count: 16)), actor: "ana (uid 1000)", action: "bundle.put",
    compartmentID: try! CompartmentID(bytes: [UInt8](repeating: 0xC0, count: 16)), subjectID: [UInt8](repeating: 0x5B, count: 16),
    detailHashes: [.init(name: "file", hash: [UInt8](repeating: 0xAA, count: 32)), .init(name: "name", hash: [UInt8](repeating: 0xBB, count: 32))],
    sealedDetails: [UInt8](repeating: 0xEE, count: 24 + 21 + 16), previousHash: [UInt8](repeating: 0x99, count: 32)).encoded()

@_cdecl("LLVMFuzzerTestOneInput")
public func auditChainEntryFuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: count))
    guard let mode = input.first else {
        check([])
        return 0
    }
    check(mode & 1 == 0 ? Array(input.dropFirst()) : edited(template, by: Array(input.dropFirst())))
    return 0
}

private func check(_ bytes: [UInt8]) {
    guard let entry = try? AuditEntry(decoding: bytes) else { return }
    guard bytes.count <= AuditEntry.maximumEncodedSize else { fatalError("accepted an entry of \(bytes.count) bytes") }
    guard entry.encoded() == bytes else { fatalError("an accepted entry does not encode back to its bytes") }
    guard let again = try? AuditEntry(decoding: entry.encoded()), again == entry else { fatalError("an entry's encoding decodes differently") }
    guard entry.leafHash == MerkleHash.leaf(bytes) else { fatalError("an entry's leaf hash is not that of its bytes") }
    guard entry.subjectID.count <= 64, entry.previousHash.count == 32,
          entry.sealedDetails.isEmpty || entry.sealedDetails.count >= 40 else {
        fatalError("an accepted entry has a field of an impossible size")
    }
}
