// libFuzzer target: the channel's message-layer reader (SECURITY.md §9.9) must refuse or accept any
// sequence of records without crashing, and what it accepts must re-encode to exactly those records.
// fuzz-sources: Sources/PeerChannel
// fuzz-sources: Sources/AuditChain

/// The input is cut into records: each record is preceded by one byte giving its length (a small
/// record length keeps multi-record messages within the fuzzer's input sizes).
@_cdecl("LLVMFuzzerTestOneInput")
public func channelMessageFuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    var input = Array(UnsafeBufferPointer(start: data, count: count))[...]
    let recordLength = 96
    var reader = ChannelMessageReader(allowedTypes: [.request, .answer, .refusal, .ready], recordLength: recordLength)
    var records: [[UInt8]] = []
    while let length = input.first {
        let record = Array(input.dropFirst().prefix(Int(length)))
        input = input.dropFirst(1 + Int(length))
        records.append(record)
        let message: ChannelMessage?
        do {
            message = try reader.take(record)
        } catch {
            // A reader that refused must keep refusing.
            guard (try? reader.take(ChannelMessage.ready.encoding())) == nil else { fatalError("a reader that refused accepted more") }
            return 0
        }
        if let message {
            guard message.records(recordLength: recordLength) == records else { fatalError("message did not round-trip") }
            records = []
        }
    }
    return 0
}
