// libFuzzer target: a share grant arrives from another device over the channel and is parsed before
// any signature is checked. A grant that parses must re-serialize to exactly the input (one byte
// string per grant, nothing after the signature), stay within the size bound, and keep the rules the
// parser promises (key versions strictly increasing, a name within bounds).
@_cdecl("LLVMFuzzerTestOneInput")
public func shareGrantFuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    check(bytes)
    // Random bytes almost never start with the magic, version and a valid role: also try the input
    // behind them, so the fuzzer spends its time on the fields.
    check(ShareGrant.magic + [0, 1, 1 + (bytes.first ?? 0) % 2] + bytes.dropFirst())
    return 0
}

private func check(_ bytes: [UInt8]) {
    guard let grant = try? ShareGrant(parsing: bytes) else { return }
    guard bytes.count <= ShareGrant.maximumSize else { fatalError("a grant of \(bytes.count) bytes parsed") }
    guard grant.serialized() == bytes else { fatalError("share grant did not round-trip") }
    guard (try? ShareGrant(parsing: grant.serialized())) == grant else { fatalError("a serialized grant does not parse back") }
    guard ShareGrant.keyCounts.contains(grant.keys.count),
          zip(grant.keyVersions, grant.keyVersions.dropFirst()).allSatisfy({ $0 < $1 }), grant.keyVersions.first ?? 0 >= 1 else {
        fatalError("a parsed grant breaks the key version rules")
    }
    guard ShareGrant.nameSizes.contains(grant.compartmentName.utf8.count), grant.issuedAt >= 0 else {
        fatalError("a parsed grant breaks the name or time rules")
    }
}
