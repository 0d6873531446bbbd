import TestSupport

/// testvectors/sync/change-records.json (written by the independent change_record.py from SECURITY.md
/// §19.2 and §19.3 alone) as types, read by TestSupport's one vector loader: a file that does not
/// match (a missing field, an operation this file does not know) fails to load instead of running
/// partly. Ids stay the file's lowercase hex text, compared with the Swift values' `.hex`.
struct ChangeRecordVectors: Decodable {
    struct Device: Decodable {
        let seed: HexBytes
        let signingPublicKey: HexBytes
        let noisePublicKey: HexBytes
        let deviceId: String
    }

    /// One signed record, its hash and (for `records`) the fields it carries.
    struct Record: Decodable {
        let name: String
        let record: HexBytes
        let hash: String
        let fields: Fields?
    }

    struct Fields: Decodable {
        let project: String
        let device: String
        let counter: UInt64
        let lamport: UInt64
        let parents: [String]
        let operations: [VectorOperation]
        /// The body version (absent: 1, a record stored before the merge rule of block conflicts v2).
        let version: UInt8?
    }

    /// A record refused by every reader, and the reason code it is refused for.
    struct Refused: Decodable {
        let name: String
        let record: HexBytes
        let reason: String
    }

    /// The removal conflict: records that in any order keep `document` holding `text` and make `conflict`.
    struct Removal: Decodable {
        let records: [Record]
        let document: String
        let text: String
        let conflict: VectorOperation.Conflict
    }

    /// A branch as the independent replay settles it (§19.3).
    struct Settled: Decodable {
        struct Decision: Decodable {
            let decision: String
            let device: String
            let counter: Int
            let applied: Bool
        }

        let state: String
        let decidedAt: Int64?
        let before: String?
        let adoption: String?
        let decisions: [Decision]
    }

    let devices: [String: Device]
    let records: [Record]
    let refused: [Refused]
    let removal: Removal
    /// Keyed by branch id (hex).
    let settled: [String: Settled]
    /// Each snapshot in parts (by id, hex) and the SHA-256 of the payload its parts join to (§19.2).
    let joined: [String: String]
    /// Records that parse and verify, whose snapshot in parts is refused when joined: after the
    /// file's first ten records, `records` in order, the last refused for `reason`.
    let joinedRefused: [JoinedRefused]

    struct JoinedRefused: Decodable {
        let name: String
        let records: [HexBytes]
        let reason: String
    }

    static func load() throws -> ChangeRecordVectors {
        try PackageFiles.decode("testvectors/sync/change-records.json", keys: .convertFromSnakeCase)
    }

    /// The records' fields (every entry of `records` carries them).
    func fields(_ record: Record) throws -> Fields {
        guard let fields = record.fields else { throw VectorMalformed(description: "record \(record.name) has no fields") }
        return fields
    }
}
