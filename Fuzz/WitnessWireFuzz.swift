// fuzz-sources: Sources/AuditChain
// fuzz-sources: Sources/PeerChannel/PeerChannelError.swift
// fuzz-sources: Sources/PeerChannel/Witnessing/WitnessWireReader.swift
// fuzz-sources: Sources/PeerChannel/Witnessing/WitnessRequest.swift
// fuzz-sources: Sources/PeerChannel/Witnessing/WitnessAnswer.swift
// fuzz-sources: Sources/PeerChannel/Witnessing/WitnessCheck.swift
// fuzz-sources: Sources/PeerChannel/Witnessing/WitnessedLog.swift
// libFuzzer target: the witness request and answer parsers (SECURITY.md §9.11) must refuse or accept
// any input without crashing, and what they accept must serialize back to exactly the same bytes. A
// parsed request then goes through the witness's checks, first contact and with a pinned state.

/// A state a witness could hold: a log at size 3 whose epoch-0 key is the request's own genesis key.
private func pinned(for request: WitnessRequest) -> WitnessedLog {
    WitnessedLog(origin: "vaultctl/" + String(repeating: "ab", count: 16), genesisPublicKey: request.genesisPublicKey, epoch: 0,
                 epochPublicKey: request.genesisPublicKey, treeSize: 3, rootHash: [UInt8](repeating: 0x5A, count: 32),
                 cosignedNote: "", cosignedAt: 0)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func witnessWireFuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    if let request = try? WitnessRequest(parsing: bytes) {
        guard request.serialized() == bytes else { fatalError("a witness request did not round-trip") }
        _ = try? WitnessCheck(request: request, pinned: nil).run()
        _ = try? WitnessCheck(request: request, pinned: pinned(for: request)).run()
    }
    if let answer = try? WitnessAnswer(parsing: bytes) {
        guard answer.serialized() == bytes else { fatalError("a witness answer did not round-trip") }
    }
    return 0
}
