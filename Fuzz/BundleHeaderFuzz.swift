// libFuzzer target: a bundle header is the first thing read from a file anyone may have written,
// before any key is known. A header that parses must re-serialize to exactly the bytes it consumed
// (canonical encoding: one byte string per header), stay within the size bound, and describe a
// payload layout that can be computed without trapping.
@_cdecl("LLVMFuzzerTestOneInput")
public func bundleHeaderFuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    check(bytes)
    // Random bytes almost never start with the magic and version, nor carry a header length that
    // agrees with their metadata length; also try the input behind a magic and version, with the
    // header length patched to agree, so the fuzzer spends its time on the fields.
    var patched = BundleHeader.magic + [0, 1, 0, 0] + bytes
    if patched.count >= 150 {
        let size = BundleHeader.fixedSize + (Int(patched[148]) << 8 | Int(patched[149]))
        patched[10] = UInt8(truncatingIfNeeded: size >> 8)
        patched[11] = UInt8(truncatingIfNeeded: size)
    }
    check(patched)
    return 0
}

private func check(_ bytes: [UInt8]) {
    guard let header = try? BundleHeader(parsing: bytes) else { return }
    guard header.size <= BundleHeader.maximumSize, header.size <= bytes.count else { fatalError("header size \(header.size) out of bounds") }
    guard header.serialized() == Array(bytes[0..<header.size]) else { fatalError("bundle header did not round-trip") }
    guard (try? BundleHeader(parsing: header.serialized())) == header else { fatalError("a serialized header does not parse back") }
    // Sizing the payload must refuse or succeed, never trap, for any file size a file can have (its
    // length, or one the input's last 8 bytes choose, up to the largest off_t).
    let chosen = bytes.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } & UInt64(Int64.max)
    for fileSize in [UInt64(bytes.count), chosen] {
        guard let layout = try? PayloadLayout(header: header, fileSize: fileSize) else { continue }
        guard layout.sealedSize == fileSize, layout.chunkCount >= 1 else { fatalError("a layout that does not match its file size") }
        _ = layout.plaintextCount(ofChunk: layout.chunkCount - 1)
    }
}
