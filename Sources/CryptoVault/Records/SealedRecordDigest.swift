/// A keyed digest of a sealed record's plaintext, kept in the record's row (`sealed_records.digest`,
/// SECURITY.md §4.8) so that a writer can tell whether the value it is about to write is the one
/// already stored without opening the record: rewriting a 300-paragraph document after a one-word
/// edit then opens and reseals one paragraph, not 300.
///
///     digest key(v) = HKDF-SHA-256(IKM = compartment key(v), salt = empty, info = "vaultctl sealed record digest key v1", L = 32)
///     digest        = HMAC-SHA-256(digest key(v), lp(module) || lp(table) || lp(record id) || lp(field) || plaintext)[0..16]
///
/// Keyed, so someone holding the database cannot confirm a guess of a value; bound to the location,
/// so equal values at two locations have unrelated digests. What it does show to someone holding the
/// database is whether a location's value came back to an earlier one (equal digests under one key
/// version), as the detail hashes of the audit log do (§8.3). A key of its own (its own HKDF info),
/// never the record key: no key serves both the AEAD and the MAC.
enum SealedRecordDigest {
    static let size = 16
    static let keyInfo = Array("vaultctl sealed record digest key v1".utf8)

    static func key(compartmentKey: SecureBytes) throws -> SecureBytes {
        try HKDF.deriveKey(inputKeyMaterial: compartmentKey, salt: [], info: keyInfo, outputCount: 32)
    }

    /// The same key from HKDF-Extract(salt = empty, compartment key) already made (shared with the record key).
    static func key(pseudoRandomKey: SecureBytes) throws -> SecureBytes {
        try HKDF.expand(pseudoRandomKey: pseudoRandomKey, info: keyInfo, outputCount: 32)
    }

    /// The digest of `plaintext` at `location`, read where it lies (a plaintext in locked memory is
    /// never copied out: the HMAC takes it as one of its parts).
    static func digest(of plaintext: UnsafeRawBufferPointer, at location: SealedRecordLocation, key: SecureBytes) -> [UInt8] {
        let name = lengthPrefixed(Array(location.module.utf8)) + lengthPrefixed(Array(location.table.utf8))
            + lengthPrefixed(location.recordID) + lengthPrefixed(Array(location.field.utf8))
        var full = [UInt8](repeating: 0, count: HMAC.sha256DigestSize)
        key.withUnsafeBytes { key in
            name.withUnsafeBytes { name in
                full.withUnsafeMutableBytes { HMAC.authenticate(.sha256, key: key, messageParts: [name, plaintext], into: $0) }
            }
        }
        return Array(full[..<size])
    }
}
