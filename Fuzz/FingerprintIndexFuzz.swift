// The leak guard's folders only: the rest of the module imports AuditChain, which this one-module build has not.
// fuzz-sources: Fuzz/Support/ByteEdits.swift
// fuzz-sources: Sources/PrivilegedSession/LeakGuard
// fuzz-sources: Sources/PrivilegedSession/Validators
// fuzz-sources: Sources/PrivilegedSession/PrivilegedSessionError.swift
// libFuzzer target: the fingerprint index parser (SECURITY.md §11.4) reads bytes the vault stored and
// an attacker with the vault files may have written. It must refuse or accept any input without
// crashing, and what it accepts must be canonical: serializing the parsed index gives back exactly the
// input, with one fingerprint per 8 bytes after the header.
//
// An input whose first byte is even is parsed as it is (after that byte). One whose first byte is odd
// is a list of edits to a valid index instead (each 3 bytes: offset high, offset low, value; an offset
// one past the end appends; a final lone byte cuts the index to that length), so the fuzzer reaches
// the fingerprints without first having to find the key check.

private let key = try! SecureBytes(copying: [UInt8](repeating: 0x42, count: 32))

private let template: [UInt8] = {
    var index = try! FingerprintIndex(key: key)
    try! index.add("the privileged memo says that the settlement offer will be withdrawn on friday morning at nine")
    return index.serialized()
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fingerprintIndexFuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: count))
    guard let mode = input.first else {
        check([])
        return 0
    }
    check(mode & 1 == 0 ? Array(input.dropFirst()) : edited(template, by: Array(input.dropFirst())))
    return 0
}

private func check(_ bytes: [UInt8]) {
    guard let index = try? FingerprintIndex(parsing: bytes, key: key) else { return }
    guard index.serialized() == bytes else { fatalError("an accepted index does not serialize back to its bytes") }
    guard bytes.count == FingerprintIndex.headerSize + 8 * index.count else { fatalError("an accepted index has a count that is not its length") }
    guard index.count <= FingerprintIndex.maximumCount else { fatalError("an accepted index is over the bound") }
}
