import CryptoVault

/// A privileged processing session's identity: 16 random bytes chosen when it starts, the subject of
/// its `session.start` and `session.end` entries and the `session` detail of its reads and of an
/// export it allowed (SECURITY.md §10).
public typealias SessionID = TypedIdentifier<SessionKind>

public enum SessionKind: IdentifierKind { public static let name = "a session id" }
