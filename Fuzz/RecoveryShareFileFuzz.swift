// libFuzzer target: the recovery share file parser must refuse or accept any bytes without crashing.
@_cdecl("LLVMFuzzerTestOneInput")
public func recoveryShareFileFuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard let bytes = try? SecureBytes(copying: UnsafeBufferPointer(start: data, count: count)) else { return 0 }
    if let file = try? RecoveryShareFile(parsing: bytes) {
        // Whatever parses must serialise back to exactly the same bytes (one value, one form).
        guard let again = try? file.serialized(), again == bytes else { fatalError("share file did not round-trip") }
    }
    return 0
}
