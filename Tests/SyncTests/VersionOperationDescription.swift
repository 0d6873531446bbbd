import CryptoVault
@testable import Sync
import Writing

/// Operations 0x06 to 0x08 as text, the same from the parsed Swift value as `VectorOperation.described`
/// makes of the JSON of testvectors/sync/change-records.json (written by the independent change_record.py).
enum VersionOperationDescription {
    static func describe(_ operation: VersionOperation) -> String {
        switch operation {
        case .snapshot(let s):
            let content: String
            switch s.payload {
            case .whole(let bytes): content = "whole \(ByteEncoding.hex(bytes))"
            case .delta(let base, let bytes): content = "delta \(base.hex) \(ByteEncoding.hex(bytes))"
            case .parts(let base, let length, let digests):
                content = "parts \(base?.hex ?? "-") \(length) \(digests.map { ByteEncoding.hex($0) }.joined(separator: ","))"
            }
            return "snapshot \(s.id.hex) \(s.document.hex) \(s.origin.rawValue) \(s.title ?? "-") \(s.deviceID.hex) \(s.createdAt) "
                + "\(ByteEncoding.hex(s.digest)) \(content)"
        case .branch(let b):
            return "branch \(b.id.hex) \(b.document.hex) \(b.kind.rawValue) \(b.base.hex) \(b.provenance) \(b.createdAt) \(ByteEncoding.hex(b.delta))"
        case .decision(let d):
            return "decision \(d.branch.hex) \(d.document.hex) \(d.decision) \(d.decidedAt) \(d.before?.hex ?? "-") \(d.version?.hex ?? "-")"
        case .snapshotPart(let p):
            return "snapshot-part \(p.snapshot.hex) \(ByteEncoding.hex(p.bytes))"
        case .editEvent(let e):
            return "edit-event \(e.id.hex) \(e.deviceID.hex) \(e.startedAt) \(e.lastEditAt) \(e.endedAt != nil) \(e.edits) "
                + e.documents.map { "\($0.document.hex):\($0.words)" }.joined(separator: ",")
        }
    }
}
