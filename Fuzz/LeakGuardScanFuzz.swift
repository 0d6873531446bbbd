// fuzz-sources: Sources/PrivilegedSession
// libFuzzer target: the leak guard scans payloads that are any bytes (SECURITY.md §11). Every input
// must get a result without crashing; every hit must lie inside the payload and be non-empty; the
// redacted payload must hold no hit of the identifier detectors that are not part of a placeholder
// (redacting twice changes nothing more), and scanning bytes and the same bytes as a String agree
// when the bytes are valid UTF-8.

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
    let redacted = guardian.redact(payload)
    guard guardian.redact(redacted) == redacted else { fatalError("redacting a redacted payload changed it again") }
    if let text = String(validating: payload, as: UTF8.self) {
        guard guardian.scan(text) == hits else { fatalError("a String and its bytes gave different hits") }
    }
    return 0
}
