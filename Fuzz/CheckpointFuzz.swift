// fuzz-sources: Sources/AuditChain
// libFuzzer target: the checkpoint parser, and cosignature verification on any note, must refuse or
// accept any input without crashing; a parsed checkpoint must give back exactly the text it came from.

/// A published witness key (transparency-dev/formats), so that cosignature checks run on notes naming it.
private let witnessKey = try! CosignatureVerifierKey(vkey: "remora.n621.de+da77ade7+BOvN63jn/bLvkieywe8R6UYAtVtNbZpXh34x7onlmtw2")

@_cdecl("LLVMFuzzerTestOneInput")
public func checkpointFuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    let text = String(decoding: bytes, as: UTF8.self)
    if let checkpoint = try? Checkpoint(parsing: text) {
        guard checkpoint.body.utf8.elementsEqual(text.utf8) else { fatalError("checkpoint did not round-trip") }
        guard let again = try? Checkpoint(parsing: checkpoint.body), again == checkpoint else {
            fatalError("checkpoint parsed differently")
        }
    }
    if let note = try? SignedNote(parsing: bytes) {
        _ = try? witnessKey.verifyCosignature(on: note)
        if let checkpoint = try? Checkpoint(parsing: note.body), !checkpoint.body.utf8.elementsEqual(note.body.utf8) {
            fatalError("checkpoint in a note did not round-trip")
        }
    }
    return 0
}
