// fuzz-sources: Sources/Appliance/ControlMessage.swift
// fuzz-sources: Sources/Appliance/ApplianceError.swift
// libFuzzer target: the daemon's control message parser (SECURITY.md §10.6) reads whatever a local
// client sends. It must refuse or accept any input without crashing, and what it accepts must be
// canonical: encoding the parsed message gives back exactly the input.

@_cdecl("LLVMFuzzerTestOneInput")
public func controlMessageFuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: count))
    guard let message = try? ControlMessage(parsing: input) else { return 0 }
    guard let encoded = try? message.encoded(), encoded == input else {
        fatalError("a control message parsed but does not encode back to its input")
    }
    return 0
}
