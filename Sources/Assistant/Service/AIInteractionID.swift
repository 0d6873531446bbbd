import CryptoVault

/// One model call and its answer (an AIInteraction): 16 random bytes, the subject of its `ai.call` entry.
public typealias AIInteractionID = TypedIdentifier<AIInteractionKind>

public enum AIInteractionKind: IdentifierKind { public static let name = "an AI interaction id" }
