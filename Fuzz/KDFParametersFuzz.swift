// libFuzzer target: KDF parameters come from a vault header an attacker may have written.
@_cdecl("LLVMFuzzerTestOneInput")
public func kdfParametersFuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: count), as: UTF8.self)
    if let parameters = try? KDFParameters(encoded: text) {
        guard parameters.encoded == text else { fatalError("KDF parameters did not round-trip") }
        _ = try? parameters.validate()
    }
    return 0
}
