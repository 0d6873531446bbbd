import CryptoVault

/// What a `WritingID` names: a marker type per kind of record, so a block's id can never be passed
/// where a project's or a snapshot's is meant (the compiler refuses it). It is an `IdentifierKind`,
/// so the writing model's ids are the vault's `TypedIdentifier`s, parsed and refused by one rule.
public protocol WritingEntity: IdentifierKind {
    /// How the kind is named in messages ("project", "document", "block").
    static var entityName: String { get }
}

extension WritingEntity {
    /// How the id is named in refusals ("a project id").
    public static var name: String { "a \(entityName) id" }
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

/// A writing record's stable identity: a `TypedIdentifier` of 16 random bytes, chosen when it is
/// made and never reused or derived from its content (an id is a clear column, so it must say
/// nothing of what a patient note or a memo holds). Parsing refuses any other length
/// (`CryptoVaultError.invalidIdentifier`, naming the kind).
public typealias WritingID<Entity: WritingEntity> = TypedIdentifier<Entity>

extension TypedIdentifier where Kind: WritingEntity {
    /// `init(bytes:)` for the writing model's record parsers, which throw `WritingError` only
    /// (`.invalidIdentifier`, with the same message).
    static func parsed(_ bytes: [UInt8]) throws(WritingError) -> Self {
        do {
            return try Self(bytes: bytes)
        } catch {
            throw WritingError(.invalidIdentifier, error.message)
        }
    }
}
