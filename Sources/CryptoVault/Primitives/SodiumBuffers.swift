/// Byte pointers for libsodium arguments.
///
/// libsodium takes `unsigned char *` and declares most pointers non-null even when the matching length
/// is zero, while an empty Swift buffer may have no address at all. These accessors give every buffer a
/// usable address so that no call site needs a force-unwrap: an empty buffer yields the address of a
/// placeholder byte, which libsodium never reads or writes because the length it is given is zero.

/// Never written through (every use passes a length of zero), so sharing it across threads is safe.
nonisolated(unsafe) private let placeholderByte: UnsafeMutablePointer<UInt8> = {
    let byte = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
    byte.initialize(to: 0)
    return byte
}()

extension UnsafeRawBufferPointer {
    /// The start of these bytes, or the placeholder when the buffer is empty.
    var sodiumBytes: UnsafePointer<UInt8> {
        guard count > 0, let base = baseAddress else { return UnsafePointer(placeholderByte) }
        return base.assumingMemoryBound(to: UInt8.self)
    }
}

extension UnsafeMutableRawBufferPointer {
    /// The start of these bytes, or the placeholder when the buffer is empty. Callers size output buffers
    /// before calling libsodium, so an empty output always comes with a zero length.
    var sodiumBytes: UnsafeMutablePointer<UInt8> {
        guard count > 0, let base = baseAddress else { return placeholderByte }
        return base.assumingMemoryBound(to: UInt8.self)
    }
}
