// fuzz-sources: Sources/Assistant/Wire
// libFuzzer target: the assistant's server-sent events parser (SECURITY.md §17.5). Any bytes: the
// events must be the same whether the stream arrives whole or byte by byte (CR LF split across
// reads included), each within the event bound, with names and data that are valid UTF-8.
@_cdecl("LLVMFuzzerTestOneInput")
public func serverSentEventsFuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    var whole = ServerSentEvents()
    let wholeEvents = try? whole.feed(bytes)
    var split = ServerSentEvents()
    var splitEvents: [ServerSentEvents.Event]? = []
    for byte in bytes {
        guard let events = try? split.feed([byte]) else { splitEvents = nil; break }
        splitEvents! += events
    }
    guard wholeEvents == splitEvents else { fatalError("events depend on how the bytes arrive") }
    for event in wholeEvents ?? [] where event.data.utf8.count > ServerSentEvents.maximumEventBytes || event.name.isEmpty {
        fatalError("an event past its bound, or without a name")
    }
    return 0
}
