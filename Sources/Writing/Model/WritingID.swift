import CryptoVault

/// What a `WritingID` names: a marker type per kind of record, so a block's id can never be passed
/// where a project's or a snapshot's is meant (the compiler refuses it).
public protocol WritingEntity: Sendable {
    /// How the kind is named in messages ("project", "document", "block").
    static var entityName: String { get }
}

public enum ProjectEntity: WritingEntity { public static let entityName = "project" }
/// A chapter (a folder) or a scene (a document): the binder's nodes share one id space, so a move
/// between folders never changes an id.
public enum NodeEntity: WritingEntity { public static let entityName = "document or folder" }
public enum BlockEntity: WritingEntity { public static let entityName = "block" }
/// A character, place, plot beat or snippet of a project (`ProjectEntry`).
public enum EntryEntity: WritingEntity { public static let entityName = "entry" }
/// A stored version of a document (`Snapshot`).
public enum SnapshotEntity: WritingEntity { public static let entityName = "snapshot" }

public typealias ProjectID = WritingID<ProjectEntity>
public typealias NodeID = WritingID<NodeEntity>
public typealias BlockID = WritingID<BlockEntity>
public typealias EntryID = WritingID<EntryEntity>
public typealias SnapshotID = WritingID<SnapshotEntity>

/// A writing record's stable identity: 16 random bytes, chosen when it is made and never reused or
/// derived from its content (an id is a clear column, so it must say nothing of what a patient note
/// or a memo holds). Parsing refuses any other length.
public struct WritingID<Entity: WritingEntity>: Hashable, Sendable, CustomStringConvertible {
    public static var size: Int { 16 }

    /// The 16 bytes, for the SQL rows and the sealed records' locations.
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) throws(WritingError) {
        guard bytes.count == Self.size else {
            throw WritingError(.invalidIdentifier, "a \(Entity.entityName) id is \(Self.size) bytes, not \(bytes.count)")
        }
        self.bytes = bytes
    }

    /// Exactly 32 hex digits (either case), by the same rule as the vault's other ids (`IdentifierHex`).
    public init(hex text: String) throws(WritingError) {
        do {
            self.bytes = try IdentifierHex.bytes(text, size: Self.size, kind: "a \(Entity.entityName) id")
        } catch {
            throw WritingError(.invalidIdentifier, error.message)
        }
    }

    /// A fresh random id.
    public static func random() throws -> Self { try Self(bytes: try SecureRandom.bytes(size)) }

    public var hex: String { ByteEncoding.hex(bytes) }
    public var description: String { hex }
}
