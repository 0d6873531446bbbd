// fuzz-sources: Sources/AuditChain
// libFuzzer target: the signed-note and verifier-key parsers must refuse or accept any bytes without
// crashing, and whatever they accept must serialize back to exactly the same bytes.

/// A published key (golang.org/x/mod/sumdb/note), so that verification runs on notes that name it.
private let knownKey = try! NoteVerifierKey(vkey: "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW")

@_cdecl("LLVMFuzzerTestOneInput")
public func signedNoteFuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    if let note = try? SignedNote(parsing: bytes) {
        // One note, one form: the text it serializes to is the text it was parsed from.
        let text = note.serialized()
        guard text.utf8.elementsEqual(bytes) else { fatalError("signed note did not round-trip") }
        guard let again = try? SignedNote(parsing: text), again == note else { fatalError("signed note parsed differently") }
        _ = try? note.verify(using: [knownKey])
    }
    let text = String(decoding: bytes, as: UTF8.self)
    if let key = try? NoteVerifierKey(vkey: text), key.vkey != text { fatalError("note key did not round-trip") }
    if let key = try? CosignatureVerifierKey(vkey: text), key.vkey != text { fatalError("cosignature key did not round-trip") }
    return 0
}
