// libFuzzer target: the recovery key parser must refuse or accept any text without crashing.
@_cdecl("LLVMFuzzerTestOneInput")
public func recoveryKeyFuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: count), as: UTF8.self)
    if let key = try? RecoveryKey(parsing: text) {
        // A parsed key must display in canonical form and parse back to the same key.
        guard let again = try? RecoveryKey(parsing: key.displayString), again.keyMaterial == key.keyMaterial else {
            fatalError("recovery key did not round-trip")
        }
    }
    return 0
}
