// libFuzzer target: a sealed record is read from a database row anyone with the file may have
// written. Parsing must refuse or succeed without trapping; a header that parses must serialize back
// to exactly the bytes it was read from (one encoding); and opening must refuse every input that is
// not a record sealed under the fixed key at the fixed identity, never returning plaintext for it.
private let key = try! SecureBytes(copying: [UInt8](repeating: 0x5A, count: 32))  // fixed test key, not input
private let identity = SealedRecordIdentity(
    vaultID: try! VaultID(bytes: [UInt8](repeating: 1, count: 16)), compartmentID: try! CompartmentID(bytes: [UInt8](repeating: 2, count: 16)), keyVersion: 1,
    location: try! SealedRecordLocation(module: "writing", table: "blocks", recordID: [3], field: "text"))

@_cdecl("LLVMFuzzerTestOneInput")
public func sealedRecordFuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    check(bytes)
    // Random bytes rarely start with version 1 and key version 1: try them behind such a start too.
    check([1, 0, 0, 0, 1] + bytes)
    // A genuine record with one input-chosen byte changed must never open.
    if let first = bytes.first, let sealed = try? SealedRecordCodec.seal(Array(bytes.dropFirst()), identity: identity, recordKey: key) {
        var altered = sealed
        altered[Int(first) % altered.count] ^= bytes.count > 1 ? (bytes[1] | 1) : 1
        guard (try? SealedRecordCodec.open(altered, identity: identity, recordKey: key)) == nil else { fatalError("an altered record opened") }
        guard (try? SealedRecordCodec.open(sealed, identity: identity, recordKey: key))?.exposedCopy() == Array(bytes.dropFirst()) else {
            fatalError("a sealed record did not open to its plaintext")
        }
    }
    return 0
}

private func check(_ bytes: [UInt8]) {
    guard let header = try? SealedRecordCodec.Header(parsing: bytes) else { return }
    guard header.serialized + header.nonce == Array(bytes[0..<45]) else { fatalError("a sealed record header did not round-trip") }
    // Nothing but a real seal authenticates: a random input opening would be a forgery.
    if (try? SealedRecordCodec.open(bytes, identity: identity, recordKey: key)) != nil { fatalError("an unsealed input opened") }
}
