/// Where a payload is going, named as `KIND:ID` (for example `model:summarizer`, `device:3fa9…`).
public struct EgressDestination: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, CaseIterable {
        /// This vault itself (content moving between its compartments); the id is this vault's id.
        case vault
        /// One of the owner's paired devices; the id is its device id.
        case device
        /// A plaintext file written outside the vault (`file:PATH`). Until 2026-12 this kind was
        /// spelled `export`; entries already in the audit log keep `export:PATH` (the log is append-only
        /// and verified byte for byte), and parsing still reads that spelling as this kind.
        case file
        /// Another person or device the owner shares with.
        case share
        /// A call to a language model or another service that reads the text.
        case model
        /// A sync or backup service.
        case sync
    }

    public let kind: Kind
    public let id: String

    public init(kind: Kind, id: String) {
        self.kind = kind
        self.id = id
    }

    /// Parses `KIND:ID`: a known kind, then 1 to 256 printable characters.
    public init(parsing text: String) throws(PrivilegedSessionError) {
        guard let colon = text.firstIndex(of: ":") else {
            throw PrivilegedSessionError(.invalidDestination, "a destination is KIND:ID (kinds: \(Self.kindList))")
        }
        guard let kind = Kind(spelled: String(text[..<colon])) else {
            throw PrivilegedSessionError(.invalidDestination, "unknown destination kind (kinds: \(Self.kindList))")
        }
        let id = String(text[text.index(after: colon)...])
        guard (1...256).contains(id.utf8.count),
              !id.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == " " }) else {
            throw PrivilegedSessionError(.invalidDestination, "a destination id is 1 to 256 characters with no space or control character")
        }
        self.init(kind: kind, id: id)
    }

    static var kindList: String { Kind.allCases.map(\.rawValue).joined(separator: ", ") }

    public var description: String { "\(kind.rawValue):\(id)" }
}

extension EgressDestination.Kind {
    /// The kind a destination's text names: its name, or `export`, the old spelling of `file`
    /// (SECURITY.md §10.5), so a destination read back from an older entry still parses.
    public init?(spelled name: String) {
        if name == "export" { self = .file; return }
        self.init(rawValue: name)
    }
}
