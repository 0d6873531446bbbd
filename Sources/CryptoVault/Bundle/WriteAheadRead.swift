/// Plaintext leaves only after its read is on the record (SECURITY.md §8.1).
///
/// A read's entry is written durably just before the first verified plaintext is handed to the
/// caller's sink, with the bytes the read is to release. Recording after the read would leave a
/// window in which a process killed part way (or a sink that never returns) has released plaintext
/// that no entry mentions; recording before opening would record reads that released nothing.
/// If the entry cannot be written the sink gets nothing; a read that fails before any chunk
/// verified records nothing; one that succeeds releasing nothing (an empty bundle or range) is
/// recorded when it ends.
public enum WriteAheadRead {
    /// Runs `body` with a sink that calls `record(planned)` once, before passing on the first bytes
    /// to `sink`.
    public static func run(planned: UInt64, record: (UInt64) throws -> Void,
                           to sink: (UnsafeRawBufferPointer) throws -> Void,
                           _ body: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws {
        var recorded = false
        try withoutActuallyEscaping(record) { record in
            try withoutActuallyEscaping(sink) { sink in
                let recordingFirst: (UnsafeRawBufferPointer) throws -> Void = { bytes in
                    if !recorded {
                        try record(planned)
                        recorded = true
                    }
                    try sink(bytes)
                }
                try body(recordingFirst)
            }
            if !recorded { try record(planned) }
        }
    }
}
