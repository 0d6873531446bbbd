// fuzz-sources: Sources/Console/HTTP
// fuzz-sources: Sources/Console/ConsoleError.swift
// libFuzzer target: the console's HTTP request parser (SECURITY.md §16.2). Any local process or
// page can send the console bytes: a head must be refused or parsed without trapping; a parsed one
// is within every bound, has exactly one Host, a path starting with "/", lower-case token names and
// values without control bytes; written back field by field it parses to the same request; and the
// scan for the end of a head never reports a position past the bytes or before a CRLF CRLF.
private let parser = HTTPRequestParser()

private func written(_ request: HTTPRequest) -> [UInt8] {
    var head = "\(request.method.rawValue) \(request.path)\(request.query.isEmpty ? "" : "?" + request.query) HTTP/1.1\r\n"
    for field in request.fields { head += "\(field.name): \(field.value)\r\n" }
    return Array((head + "\r\n").utf8)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func httpRequestFuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    if let end = HTTPConnection.endOfHead(in: bytes) {
        guard end <= bytes.count, end >= 4, bytes[(end - 4)..<end].elementsEqual([13, 10, 13, 10]) else { fatalError("endOfHead is wrong") }
    }
    guard let (request, bodyLength) = try? parser.parse(head: bytes) else { return 0 }
    let limits = parser.limits
    guard bytes.count <= limits.headBytes, request.fields.count <= limits.fieldCount, bodyLength >= 0, bodyLength <= limits.bodyBytes,
          request.path.hasPrefix("/"), request.fields.filter({ $0.name == "host" }).count == 1,
          !request.fields.contains(where: { $0.name == "transfer-encoding" }) else {
        fatalError("a head past its bounds or its framing rules parsed")
    }
    for field in request.fields {
        guard field.name == field.name.lowercased(), !field.name.isEmpty,
              field.value.utf8.allSatisfy({ ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x09 }) else { fatalError("a field parsed that the grammar refuses") }
    }
    guard let (again, againLength) = try? parser.parse(head: written(request)), again.method == request.method, again.path == request.path,
          again.query == request.query, again.fields.map(\.name) == request.fields.map(\.name),
          again.fields.map(\.value) == request.fields.map(\.value), againLength == bodyLength else {
        fatalError("a parsed head written back does not parse to the same request")
    }
    return 0
}
