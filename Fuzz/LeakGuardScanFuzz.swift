// The leak guard's folders only: the rest of the module imports AuditChain, which this one-module build has not.
// fuzz-sources: Sources/PrivilegedSession/LeakGuard
// fuzz-sources: Sources/PrivilegedSession/Validators
// fuzz-sources: Sources/PrivilegedSession/PrivilegedSessionError.swift
// fuzz-sources: Sources/Assistant/Service/PlaceholderRestoration.swift
// libFuzzer target: the leak guard scans payloads that are any bytes (SECURITY.md §11). Every input
// must get a result without crashing; every hit must lie inside the payload and be non-empty; the
// redacted payload must be exactly the payload with each group of overlapping hits replaced by the
// placeholder of its first kind (§11.5, recomputed here the plain way); and scanning bytes and the
// same bytes as a String agree when the bytes are valid UTF-8.
//
// Redacting twice is not required to change nothing more: detection depends on context (a domain
// glued to "/m@..." is not an address), and removing a hit can free its neighbour.

private let guardian: LeakGuard = {
    var index = try! FingerprintIndex(key: SecureBytes(copying: [UInt8](repeating: 0x42, count: 32)))
    try! index.add("the privileged memo says that the settlement offer will be withdrawn on friday morning at nine")
    return LeakGuard(fingerprints: index)
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func leakGuardScanFuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let payload = Array(UnsafeBufferPointer(start: data, count: count))
    let hits = guardian.scan(payload)
    for hit in hits where hit.range.isEmpty || hit.range.lowerBound < 0 || hit.range.upperBound > payload.count {
        fatalError("a hit outside the payload or empty")
    }
    guard guardian.redact(payload) == plainlyRedacted(payload, hits) else { fatalError("redaction is not the payload with its hits replaced") }
    let (numbered, values) = guardian.redactNumbered(payload)
    // Bytes, not Characters: a combining mark after the closing bracket makes another Character.
    for placeholder in values.keys where !contains(numbered, Array(placeholder.utf8)) {
        fatalError("a numbered placeholder that is not in the redacted payload")
    }
    if let text = String(validating: payload, as: UTF8.self) {
        guard guardian.scan(text) == hits else { fatalError("a String and its bytes gave different hits") }
        let restored = PlaceholderRestoration(redactions: values).restore(String(decoding: numbered, as: UTF8.self))
        guard restored == text else { fatalError("numbered redaction does not restore to the payload") }
    }
    return 0
}

private func plainlyRedacted(_ payload: [UInt8], _ hits: [LeakHit]) -> [UInt8] {
    var output: [UInt8] = []
    var position = 0
    var index = 0
    let sorted = hits.sorted { $0.range.lowerBound < $1.range.lowerBound }
    while index < sorted.count {
        var end = sorted[index].range.upperBound
        var kinds = [sorted[index].kind]
        var next = index + 1
        while next < sorted.count, sorted[next].range.lowerBound < end {
            end = max(end, sorted[next].range.upperBound)
            kinds.append(sorted[next].kind)
            next += 1
        }
        output += payload[position..<sorted[index].range.lowerBound]
        output += LeakKind.allCases.first(where: kinds.contains)!.placeholder.utf8
        position = end
        index = next
    }
    return output + payload[position...]
}

private func contains(_ bytes: [UInt8], _ needle: [UInt8]) -> Bool {
    guard needle.count <= bytes.count else { return false }
    return (0...(bytes.count - needle.count)).contains { start in bytes[start..<start + needle.count].elementsEqual(needle) }
}
