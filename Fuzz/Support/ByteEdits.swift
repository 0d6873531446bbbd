// Shared by fuzz targets that name this file on a `// fuzz-sources:` line (scripts/fuzz).

/// `original` changed by `edits`, read 3 bytes at a time (offset high, offset low, value): the byte
/// at that offset (modulo one past the end) is set, or appended one past the end; a final lone byte
/// cuts the result to that length. Lets the fuzzer start from a valid input instead of finding one.
func edited(_ original: [UInt8], by edits: [UInt8]) -> [UInt8] {
    var bytes = original
    var next = 0
    while edits.count - next >= 3 {
        let offset = (Int(edits[next]) << 8 | Int(edits[next + 1])) % (bytes.count + 1)
        if offset == bytes.count { bytes.append(edits[next + 2]) } else { bytes[offset] = edits[next + 2] }
        next += 3
    }
    if edits.count - next == 1 { bytes = Array(bytes.prefix(Int(edits[next]) % (bytes.count + 1))) }
    return bytes
}
