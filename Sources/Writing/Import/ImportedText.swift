/// The checks every imported file passes before any parsing: at most
/// `WritingLimits.maximumStoredDocumentBytes`, well-formed UTF-8 (no overlong forms, no surrogates),
/// and no NUL or other control character but tab, line feed and carriage return (as the text form,
/// SECURITY.md §14.7). The bytes are read where they lie (the caller's locked buffer): no copy is made.
enum ImportedText {
    static func check(_ bytes: UnsafeRawBufferPointer) throws(WritingError) {
        let limit = WritingLimits.maximumStoredDocumentBytes
        guard bytes.count <= limit else {
            throw WritingError(.documentTooLarge, "the file is \(bytes.count) bytes; one text holds at most \(limit)")
        }
        var iterator = CountingIterator(base: bytes.makeIterator())
        var decoder = UTF8()
        while true {
            let start = iterator.offset
            switch decoder.decode(&iterator) {
            case .emptyInput: return
            case .error: throw WritingError(.invalidText, "the file is not valid UTF-8 (at byte \(start))")
            case .scalarValue(let scalar) where scalar == "\0":
                throw WritingError(.invalidText, "the file holds a NUL byte (at byte \(start))")
            case .scalarValue(let scalar) where isRefused(scalar):
                throw WritingError(.invalidText, "the file holds the control character \(name(scalar)) (at byte \(start))")
            case .scalarValue: continue
            }
        }
    }

    /// A control character a document cannot hold: every one but tab, line feed and carriage return.
    static func isRefused(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control && !["\t", "\n", "\r"].contains(scalar)
    }

    static func name(_ scalar: Unicode.Scalar) -> String { "U+" + String(scalar.value, radix: 16, uppercase: true) }

    /// Bytes with how many were taken, so an error can say where the file is wrong.
    private struct CountingIterator: IteratorProtocol {
        var base: UnsafeRawBufferPointer.Iterator
        var offset = 0

        mutating func next() -> UInt8? {
            guard let byte = base.next() else { return nil }
            offset += 1
            return byte
        }
    }
}
