// fuzz-sources: Sources/Assistant/Wire
// libFuzzer target: the assistant's HTTP response head and chunked-body parsers (SECURITY.md §17.5).
// A model server (or whatever answers at its address) sends any bytes: a head must be refused or
// parsed within its bounds, with lower-case token names and no control byte in a value, and the
// framing must be one the grammar allows; written back, a parsed head parses to the same head.
// The rest of the input, fed to the chunked decoder whole and byte by byte, must give the same
// bytes and the same verdict either way, and never more body than it was given.
@_cdecl("LLVMFuzzerTestOneInput")
public func httpResponseFuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    let end = HTTPResponseHead.endOfHead(in: bytes) ?? bytes.count
    if let head = try? HTTPResponseHead(parsing: Array(bytes[..<end])) {
        guard end <= HTTPResponseHead.maximumBytes, head.fields.count <= HTTPResponseHead.maximumFields, (100...599).contains(head.status) else {
            fatalError("a head past its bounds parsed")
        }
        for field in head.fields where field.name != field.name.lowercased() || field.name.isEmpty || !field.value.utf8.allSatisfy(HTTPResponseHead.isValueByte) {
            fatalError("a field parsed that the grammar refuses")
        }
        var text = "HTTP/1.1 \(head.status) X\r\n"
        for field in head.fields { text += "\(field.name): \(field.value)\r\n" }
        guard let again = try? HTTPResponseHead(parsing: Array((text + "\r\n").utf8)), again == head else {
            fatalError("a parsed head written back does not parse to the same head")
        }
    }
    let body = bytes[min(end, bytes.count)...]
    var whole = ChunkedDecoder()
    let wholeResult = try? whole.feed(body)
    var split = ChunkedDecoder()
    var splitResult: [UInt8]? = []
    for byte in body {
        guard let piece = try? split.feed([byte][...]) else { splitResult = nil; break }
        splitResult! += piece
    }
    if let wholeResult {
        guard wholeResult.count <= body.count, wholeResult == splitResult, whole.isFinished == split.isFinished else {
            fatalError("chunked decoding depends on how the bytes arrive")
        }
    } else if splitResult != nil {
        fatalError("chunked decoding refused whole what it took byte by byte")
    }
    return 0
}
