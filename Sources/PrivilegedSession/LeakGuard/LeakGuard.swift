/// What must not leave the vault, found in a payload: identifiers (SSN, NPI, MRN, phone, email, date of
/// birth, payment card, IBAN), each validated, not merely pattern-matched, and quotes of privileged
/// documents through their fingerprints.
///
/// A payload is any bytes. Identifiers are ASCII, so they are found in the bytes directly, and invalid
/// UTF-8 is neither an error nor a reason to miss one; words for fingerprints are read as UTF-8 with
/// each ill-formed byte a separator. Hits are reported as byte ranges, sorted by where they start.
public struct LeakGuard: Sendable {
    public let fingerprints: FingerprintIndex?

    /// A guard for identifiers, and for quotes of the documents in `fingerprints` if given.
    public init(fingerprints: FingerprintIndex? = nil) {
        self.fingerprints = fingerprints
    }

    public func scan(_ payload: String) -> [LeakHit] {
        var text = payload
        return text.withUTF8 { scan(bytes: $0) }
    }

    public func scan<Bytes: Collection<UInt8>>(_ payload: Bytes) -> [LeakHit] {
        if let hits = payload.withContiguousStorageIfAvailable({ scan(bytes: $0) }) { return hits }
        return Array(payload).withUnsafeBufferPointer { scan(bytes: $0) }
    }

    /// The payload with every hit replaced by its placeholder (`Redaction`).
    public func redact(_ payload: String) -> String {
        var text = payload
        let redacted = text.withUTF8 { bytes in Redaction.apply(scan(bytes: bytes), to: bytes) }
        return String(decoding: redacted, as: UTF8.self)
    }

    public func redact<Bytes: Collection<UInt8>>(_ payload: Bytes) -> [UInt8] {
        let bytes = Array(payload)
        return bytes.withUnsafeBufferPointer { Redaction.apply(scan(bytes: $0), to: $0) }
    }

    /// The payload with every hit replaced by a numbered placeholder, and what each stands for
    /// (`Redaction.numbered`).
    public func redactNumbered<Bytes: Collection<UInt8>>(_ payload: Bytes) -> (redacted: [UInt8], values: [String: [UInt8]]) {
        let bytes = Array(payload)
        return bytes.withUnsafeBufferPointer { Redaction.numbered(scan(bytes: $0), in: $0) }
    }

    func scan(bytes: UnsafeBufferPointer<UInt8>) -> [LeakHit] {
        Self.hits(in: bytes, quotes: fingerprints?.quotes(in: bytes) ?? [])
    }

    /// What a guard without an index of its own finds, with the quotes of the vault's stored
    /// fingerprints looked up for this payload (`StoredFingerprints`): the egress funnel's default.
    static func scan(_ payload: [UInt8], quoting stored: StoredFingerprints) throws -> [LeakHit] {
        try payload.withUnsafeBufferPointer { bytes in hits(in: bytes, quotes: try stored.quotes(in: bytes)) }
    }

    /// The identifiers in `bytes` and `quotes`, as hits sorted by where they start.
    private static func hits(in bytes: UnsafeBufferPointer<UInt8>, quotes: [Range<Int>]) -> [LeakHit] {
        var scanner = IdentifierScanner(bytes)
        scanner.scan()
        let hits = scanner.hits + quotes.map { LeakHit(kind: .privilegedQuote, range: $0) }
        return hits.sorted { ($0.range.lowerBound, $0.kind) < ($1.range.lowerBound, $1.kind) }
    }
}
