import AuditChain
import CryptoVault

/// The witness's answer to a `WitnessRequest` (SECURITY.md §9.11). Every other refusal travels as a
/// channel refusal with its error code; these two are answers because the log acts on their content:
///
///     answer = 0x01 || cosignature line             one note signature line, UTF-8, ending in LF, ≤ 1024 bytes
///            | 0x02 || u64be known size || reason   reason 0x01: old size mismatch, 0x02: rollback
///
/// A conflict is tlog-witness's 409: the log's old size is not what the witness holds, or its
/// checkpoint is smaller than that; the known size lets an honest log retry from it.
public enum WitnessAnswer: Sendable, Equatable {
    case cosigned(NoteSignature)
    case conflict(knownSize: UInt64, reason: ConflictReason)

    public enum ConflictReason: UInt8, Sendable {
        case oldSizeMismatch = 0x01
        case rollback = 0x02

        var code: PeerChannelErrorCode { self == .rollback ? .checkpointRollback : .oldSizeMismatch }
    }

    static let cosignedTag: UInt8 = 0x01
    static let conflictTag: UInt8 = 0x02
    static let maximumLineSize = 1024

    public init(parsing body: [UInt8]) throws(PeerChannelError) {
        var reader = WitnessWireReader(body)
        switch try reader.byte() {
        case Self.cosignedTag:
            let line = reader.rest()
            guard line.count <= Self.maximumLineSize else { throw WitnessWireReader.malformed("a cosignature line above \(Self.maximumLineSize) bytes") }
            self = .cosigned(try Self.parseLine(line))
        case Self.conflictTag:
            let size = try reader.integer(8)
            guard let reason = ConflictReason(rawValue: try reader.byte()) else { throw WitnessWireReader.malformed("an unknown conflict reason") }
            try reader.requireEnd()
            self = .conflict(knownSize: size, reason: reason)
        default:
            throw WitnessWireReader.malformed("an unknown witness answer")
        }
    }

    public func serialized() -> [UInt8] {
        switch self {
        case .cosigned(let line): [Self.cosignedTag] + Array(line.line.utf8)
        case .conflict(let size, let reason): [Self.conflictTag] + WitnessWireReader.bigEndian(size, width: 8) + [reason.rawValue]
        }
    }

    /// Exactly one signature line: parsed as the last line of a note's signature block would be.
    private static func parseLine(_ line: [UInt8]) throws(PeerChannelError) -> NoteSignature {
        guard line.last == UInt8(ascii: "\n"), line.count(where: { $0 == UInt8(ascii: "\n") }) == 1 else {
            throw WitnessWireReader.malformed("a cosignature is one line ending in a newline")
        }
        do {
            // A note of a placeholder text and this line parses the line with the note's own rules.
            let note = try SignedNote(parsing: Array("x\n\n".utf8) + line)
            return note.signatures[0]
        } catch {
            throw WitnessWireReader.malformed("the cosignature line is not a note signature line: \(error.message)")
        }
    }
}
