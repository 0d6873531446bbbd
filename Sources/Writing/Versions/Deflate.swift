internal import CZlib

/// Raw DEFLATE (RFC 1951) through zlib, for the snapshot records that store a writer's text packed
/// before it is sealed (SECURITY.md §15.2, where compressing before encrypting is argued to be safe
/// here). zlib's memory is wiped when freed (the CZlib shim's allocator).
enum Deflate {
    /// `bytes` packed at zlib's best compression.
    static func pack(_ bytes: [UInt8]) -> [UInt8] {
        var stream = z_stream()
        guard czlib_deflate_init(&stream) == Z_OK else { fatalError("zlib refused to start deflate: out of memory") }
        defer { deflateEnd(&stream) }
        var out = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(bytes.count))))
        let status = bytes.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = output.baseAddress
                stream.avail_out = uInt(output.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        // deflateBound is enough for one Z_FINISH call, whatever the input.
        guard status == Z_STREAM_END else { fatalError("deflate did not finish within deflateBound (\(status))") }
        out.removeLast(out.count - Int(stream.total_out))
        return out
    }

    /// The `size` bytes that `packed` inflates to. Refused as `.damagedRecord`: a size over `limit`
    /// (checked before anything is allocated), a stream that is not valid DEFLATE, that gives more or
    /// fewer than `size` bytes, or that ends before the last input byte.
    static func unpack(_ packed: [UInt8], size: Int, limit: Int) throws(WritingError) -> [UInt8] {
        guard size <= limit else { throw WritingError(.damagedRecord, "a packed snapshot of \(size) bytes; at most \(limit) are read") }
        var stream = z_stream()
        guard czlib_inflate_init(&stream) == Z_OK else { fatalError("zlib refused to start inflate: out of memory") }
        defer { inflateEnd(&stream) }
        // One byte more than the size, so a stream that gives more is seen rather than cut.
        var out = [UInt8](repeating: 0, count: size + 1)
        let status = packed.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = output.baseAddress
                stream.avail_out = uInt(output.count)
                return inflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END, stream.avail_in == 0, Int(stream.total_out) == size else {
            throw WritingError(.damagedRecord, "a packed snapshot is not a DEFLATE stream of exactly \(size) bytes")
        }
        out.removeLast()
        return out
    }
}
