// fuzz-sources: Sources/Assistant/Wire
// libFuzzer target: the NDJSON line splitter of Ollama's stream (SECURITY.md §17.5). Any bytes: the
// lines must be the same whole or byte by byte, none holds a line feed, none is blank, and every
// line is within its bound.
@_cdecl("LLVMFuzzerTestOneInput")
public func ndjsonLinesFuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    var whole = NDJSONLines()
    let wholeLines = try? whole.feed(bytes)
    var split = NDJSONLines()
    var splitLines: [String]? = []
    for byte in bytes {
        guard let lines = try? split.feed([byte]) else { splitLines = nil; break }
        splitLines! += lines
    }
    guard wholeLines == splitLines else { fatalError("lines depend on how the bytes arrive") }
    for line in wholeLines ?? [] where line.utf8.contains(0x0A) || line.utf8.count > NDJSONLines.maximumLineBytes
        || line.utf8.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) {
        fatalError("a line with a line feed, past its bound, or blank")
    }
    return 0
}
