// fuzz-sources: Sources/PeerChannel/Replication/Wire
// fuzz-sources: Sources/PeerChannel/PeerChannelError.swift
// fuzz-sources: Sources/PeerChannel/Channel/ChannelService.swift
// libFuzzer target: every replication message body (SECURITY.md §9.13) arrives from a paired device
// that may be hostile. Each parser must refuse or succeed without trapping, a body that parses must
// serialize back to exactly its bytes (one encoding per message), and parsed fields must respect the
// bounds the format states.
@_cdecl("LLVMFuzzerTestOneInput")
public func replicationMessagesFuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    checkInventoryRequest(bytes)
    checkPage(bytes)
    checkAnnouncement(bytes)
    checkChunk(bytes)
    checkFetch(bytes)
    if let received = try? ReplicationWire.parseReceived(bytes, atMost: 1 << 20) {
        guard received <= 1 << 20, ReplicationWire.received(received) == bytes else { fatalError("received count did not round-trip") }
    }
    return 0
}

private func checkInventoryRequest(_ bytes: [UInt8]) {
    guard let request = try? ReplicaInventory.Request(parsing: bytes) else { return }
    guard request.serialized() == bytes else { fatalError("inventory request did not round-trip") }
    if let next = request.next(after: request.firstBundleID) {
        guard request.firstBundleID.lexicographicallyPrecedes(next.firstBundleID) else { fatalError("the next page does not move forward") }
    }
}

private func checkPage(_ bytes: [UInt8]) {
    // The first 16 bytes choose the first bundle id asked for; the rest is the page.
    guard bytes.count >= 16 else { return }
    let request = ReplicaInventory.Request(vaultID: [UInt8](repeating: 0, count: 16), firstBundleID: Array(bytes[0..<16]))
    guard let entries = try? ReplicaInventory.parsePage(Array(bytes[16...]), answering: request) else { return }
    guard entries.count <= ReplicaInventory.pageSize, ReplicaInventory.serialize(entries) == Array(bytes[16...]),
          entries.allSatisfy({ $0.length >= 1 && $0.received <= $0.length }) else { fatalError("an inventory page out of bounds") }
}

private func checkAnnouncement(_ bytes: [UInt8]) {
    guard let announcement = try? ReplicaAnnouncement(parsing: bytes) else { return }
    guard announcement.length >= 1, announcement.serialized() == bytes else { fatalError("announcement did not round-trip") }
}

private func checkChunk(_ bytes: [UInt8]) {
    guard let chunk = try? ReplicaChunk(parsing: bytes) else { return }
    guard chunk.dataCount >= 1, chunk.dataRange.upperBound == bytes.count, chunk.end >= chunk.offset,
          ReplicaChunk.body(bundleID: chunk.bundleID, offset: chunk.offset, dataCount: 0) == Array(bytes[0..<ReplicaChunk.headerSize]) else {
        fatalError("chunk header did not round-trip")
    }
}

private func checkFetch(_ bytes: [UInt8]) {
    guard let fetch = try? ReplicaFetch(parsing: bytes) else { return }
    guard fetch.serialized() == bytes, (1...ChannelLimits.maximumBodyLength).contains(fetch.count) else { fatalError("fetch did not round-trip") }
    let length = UInt64(bytes.count) * 1_000_003
    guard fetch.answerCount(length: length) <= fetch.count else { fatalError("a fetch answer longer than asked") }
}
