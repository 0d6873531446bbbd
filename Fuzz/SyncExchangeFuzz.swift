// fuzz-sources: Sources/AuditChain
// fuzz-sources: Sources/PrivilegedSession
// fuzz-sources: Sources/Registers
// fuzz-sources: Sources/Writing
// fuzz-sources: Sources/Sync
// libFuzzer target: the messages of the sync exchange (SECURITY.md §19.9) as a hostile paired device
// may send them, each of the ten kinds tried on every input (the first byte picks which one also
// gets the input behind a valid version byte, so the fuzzer reaches the fields at once). A message
// that parses must encode back to exactly its bytes (one encoding per message), and nothing may trap.
private func check(_ bytes: [UInt8]) {
    if let request = try? SyncPullRequest(parsing: bytes) {
        guard request.serialized() == bytes else { fatalError("a pull request did not round-trip") }
    }
    if let answer = try? SyncPullAnswer(parsing: bytes) {
        guard answer.serialized() == bytes else { fatalError("a pull answer did not round-trip") }
        guard answer.records.count <= SyncWire.maximumRecords else { fatalError("a pull answer over its bound parsed") }
    }
    if let request = try? SyncPushRequest(parsing: bytes) {
        guard request.serialized() == bytes else { fatalError("a push request did not round-trip") }
    }
    if let answer = try? SyncPushAnswer(parsing: bytes) {
        guard answer.serialized() == bytes else { fatalError("a push answer did not round-trip") }
    }
    if let request = try? SyncProjectsRequest(parsing: bytes) {
        guard request.serialized() == bytes else { fatalError("a projects request did not round-trip") }
    }
    if let page = try? SyncProjectsPage(parsing: bytes) {
        guard page.serialized() == bytes else { fatalError("a projects page did not round-trip") }
        guard page.offers.count <= SyncWire.maximumOffers, !page.more || !page.offers.isEmpty else { fatalError("a projects page past its bounds parsed") }
    }
    if let offers = try? SyncOffers.parse(bytes) {
        guard SyncOffers.serialize(offers) == bytes else { fatalError("offers did not round-trip") }
    }
    if let list = try? SyncDemotionList(parsing: bytes) {
        guard list.serialized() == bytes else { fatalError("a demotion list did not round-trip") }
        guard list.demotions.count <= SyncWire.maximumDemotions else { fatalError("a demotion list over its bound parsed") }
    }
    if let taken = try? SyncOffers.parseTaken(bytes) {
        guard SyncOffers.serializeTaken(taken.map { ($0.key, $0.value) }) == bytes else { fatalError("a taken list did not round-trip") }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func syncExchangeFuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    check(bytes)
    check([SyncWire.version] + bytes)
    return 0
}
