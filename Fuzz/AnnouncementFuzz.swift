// libFuzzer target: the LAN announcement parser (SECURITY.md §9.10) must refuse or accept any
// datagram without crashing, and what it accepts must serialize back to the same bytes.
// fuzz-sources: Sources/PeerChannel
// fuzz-sources: Sources/AuditChain
@_cdecl("LLVMFuzzerTestOneInput")
public func announcementFuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let datagram = Array(UnsafeBufferPointer(start: data, count: count))
    if let announcement = try? Announcement(parsing: datagram), announcement.serialized() != datagram {
        fatalError("announcement did not round-trip")
    }
    return 0
}
