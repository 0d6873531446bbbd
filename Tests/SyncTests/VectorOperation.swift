/// One operation of testvectors/sync/change-records.json, by its `op` name (SECURITY.md §19.2):
/// each kind typed, and `described` the same text `ChangeRecordTests.describe` makes of the parsed
/// Swift value, so the two compare field by field. An `op` this type does not know fails the load.
enum VectorOperation: Decodable {
    case node(Node)
    case block(Block)
    case text(Text)
    case conflict(Conflict)
    case snapshot(Snapshot)
    case snapshotPart(SnapshotPart)
    case branch(Branch)
    case decision(Decision)
    case editEvent(EditEvent)
    case entry(Entry)
    case projectName(ProjectName)
    case projectArchived(ProjectArchived)
    case projectSnapshot(ProjectSnapshot)

    private enum Key: String, CodingKey { case op }

    init(from decoder: any Decoder) throws {
        let op = try decoder.container(keyedBy: Key.self).decode(String.self, forKey: .op)
        switch op {
        case "node": self = .node(try Node(from: decoder))
        case "block": self = .block(try Block(from: decoder))
        case "text": self = .text(try Text(from: decoder))
        case "conflict": self = .conflict(try Conflict(from: decoder))
        case "snapshot": self = .snapshot(try Snapshot(from: decoder))
        case "snapshot-part": self = .snapshotPart(try SnapshotPart(from: decoder))
        case "branch": self = .branch(try Branch(from: decoder))
        case "decision": self = .decision(try Decision(from: decoder))
        case "edit-event": self = .editEvent(try EditEvent(from: decoder))
        case "entry": self = .entry(try Entry(from: decoder))
        case "project-name": self = .projectName(try ProjectName(from: decoder))
        case "project-archived": self = .projectArchived(try ProjectArchived(from: decoder))
        case "project-snapshot": self = .projectSnapshot(try ProjectSnapshot(from: decoder))
        default:
            throw DecodingError.dataCorruptedError(forKey: .op, in: try decoder.container(keyedBy: Key.self),
                                                   debugDescription: "an operation the vector types do not know: \(op)")
        }
    }

    var described: String {
        switch self {
        case .node(let o): o.described
        case .block(let o): o.described
        case .text(let o): o.described
        case .conflict(let o): o.described
        case .snapshot(let o): o.described
        case .snapshotPart(let o): o.described
        case .branch(let o): o.described
        case .decision(let o): o.described
        case .editEvent(let o): o.described
        case .entry(let o): o.described
        case .projectName(let o): o.described
        case .projectArchived(let o): o.described
        case .projectSnapshot(let o): o.described
        }
    }

    /// A block's value (null: deleted).
    struct BlockValue: Decodable {
        let orderKey: String
        let kind: String
        let text: String
        let rows: [[String]]

        static func described(_ value: BlockValue?) -> String {
            guard let value else { return "deleted" }
            return "\(value.orderKey) \(value.kind) \(value.text) \(value.rows)"
        }
    }

    /// 0x01: a binder node written, or removed (`value` null).
    struct Node: Decodable {
        struct Value: Decodable {
            let kind: String
            let parent: String?
            let orderKey: String
            let title: String
        }

        let node: String
        let value: Value?

        var described: String {
            guard let value else { return "node \(node) removed" }
            return "node \(node) \(value.kind) \(value.parent ?? "top") \(value.orderKey) \(value.title)"
        }
    }

    /// 0x02: a block written or deleted.
    struct Block: Decodable {
        let document: String
        let block: String
        let value: BlockValue?

        var described: String { "block \(document) \(block) \(BlockValue.described(value))" }
    }

    /// 0x03: a block's text edits.
    struct Text: Decodable {
        /// A character's id (null: the start of the text).
        struct Character: Decodable {
            let device: String
            let counter: Int
            let offset: Int

            static func described(_ character: Character?) -> String {
                character.map { "\($0.device):\($0.counter):\($0.offset)" } ?? "start"
            }
        }

        struct Edit: Decodable {
            let edit: String
            let after: Character?
            let text: String?
            let first: Character?
            let last: Character?

            var described: String {
                edit == "insert" ? "insert \(Character.described(after)) \(text ?? "-")"
                    : "\(edit) \(Character.described(first)) \(Character.described(last))"
            }
        }

        let document: String
        let block: String
        let edits: [Edit]

        var described: String { "text \(document) \(block) " + edits.map(\.described).joined(separator: "; ") }
    }

    /// 0x04: a conflict (also the removal vector's `conflict`, which has no `op`).
    struct Conflict: Decodable {
        let branch: String
        let document: String
        let block: String
        let losing: BlockValue?
        let winning: BlockValue?

        var described: String {
            "conflict \(branch) \(document) \(block) \(BlockValue.described(losing)) \(BlockValue.described(winning))"
        }
    }

    /// 0x06: a snapshot, whole (`content`) or a delta from `base`.
    struct Snapshot: Decodable {
        let snapshot: String
        let document: String
        let origin: String
        let title: String?
        let device: String
        let createdAt: Int64
        let digest: String
        let content: String?
        let base: String?
        let delta: String?
        let parts: Parts?

        /// Content form 0x03: joined from 0x0C parts named by their SHA-256.
        struct Parts: Decodable {
            let base: String?
            let length: Int
            let digests: [String]
        }

        var described: String {
            let payload = content.map { "whole \($0)" }
                ?? parts.map { "parts \($0.base ?? "-") \($0.length) \($0.digests.joined(separator: ","))" }
                ?? "delta \(base ?? "-") \(delta ?? "-")"
            return "snapshot \(snapshot) \(document) \(origin) \(title ?? "-") \(device) \(createdAt) \(digest) \(payload)"
        }
    }

    /// 0x0C: a part of a snapshot's payload.
    struct SnapshotPart: Decodable {
        let snapshot: String
        let part: String

        var described: String { "snapshot-part \(snapshot) \(part)" }
    }

    /// 0x07 0x01: a branch made.
    struct Branch: Decodable {
        let branch: String
        let document: String
        let kind: String
        let base: String
        let provenance: String
        let createdAt: Int64
        let delta: String

        var described: String { "branch \(branch) \(document) \(kind) \(base) \(provenance) \(createdAt) \(delta)" }
    }

    /// 0x07 0x02: a branch decided.
    struct Decision: Decodable {
        let branch: String
        let document: String
        let decision: String
        let decidedAt: Int64
        let before: String?
        let version: String?

        var described: String { "decision \(branch) \(document) \(decision) \(decidedAt) \(before ?? "-") \(version ?? "-")" }
    }

    /// 0x08: an edit event.
    struct EditEvent: Decodable {
        struct Document: Decodable {
            let document: String
            let words: Int
        }

        let event: String
        let device: String
        let startedAt: Int64
        let lastEditAt: Int64
        let ended: Bool
        let edits: Int
        let documents: [Document]

        var described: String {
            "edit-event \(event) \(device) \(startedAt) \(lastEditAt) \(ended) \(edits) "
                + documents.map { "\($0.document):\($0.words)" }.joined(separator: ",")
        }
    }

    /// 0x09: an entry written whole, or removed (`value` null).
    struct Entry: Decodable {
        struct Value: Decodable {
            let kind: String
            let orderKey: String
            let name: String
            let body: String
            /// Slot name to text (the slot names are camelCase, untouched by the snake_case keys).
            let fields: [String: String]
        }

        let entry: String
        let value: Value?

        var described: String {
            guard let value else { return "entry \(entry) removed" }
            let fields = value.fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
            return "entry \(entry) \(value.kind) \(value.orderKey) \(value.name) | \(value.body) | " + fields
        }
    }

    /// 0x0A 0x01: the project renamed.
    struct ProjectName: Decodable {
        let name: String

        var described: String { "project name \(name)" }
    }

    /// 0x0A 0x02: the project archived at a time, or brought back (null).
    struct ProjectArchived: Decodable {
        let archivedAt: Int64?

        var described: String { "project archived \(archivedAt.map(String.init) ?? "no")" }
    }

    /// 0x0B: a project snapshot naming its documents' versions (written by the sync-data helper's
    /// generator; its Swift side comes with the operation).
    struct ProjectSnapshot: Decodable {
        struct Node: Decodable {
            let node: String
            let kind: String
            let parent: String?
            let orderKey: String
            let title: String
            let version: String?
        }

        let snapshot: String
        let origin: String
        let title: String?
        let device: String
        let createdAt: Int64
        let nodes: [Node]

        var described: String {
            "project-snapshot \(snapshot) \(origin) \(title ?? "-") \(device) \(createdAt) "
                + nodes.map { "\($0.node) \($0.kind) \($0.parent ?? "top") \($0.orderKey) \($0.title) \($0.version ?? "-")" }
                .joined(separator: "; ")
        }
    }
}
