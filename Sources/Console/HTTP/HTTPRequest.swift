import Foundation

/// One HTTP/1.1 request as the console's server accepted it (SECURITY.md §16.2): a method, an
/// origin-form target split into its path and query, the header fields with lower-cased names in the
/// order they came, and the body (`Content-Length` bytes; chunked bodies are refused at parsing).
public struct HTTPRequest: Sendable {
    public let method: HTTPMethod
    /// The target's path, as sent ("/api/projects"); percent-escapes are decoded per segment by the router.
    public let path: String
    /// The target's query, without the "?" (empty when there is none).
    public let query: String
    public let fields: [(name: String, value: String)]
    public var body: [UInt8]

    public init(method: HTTPMethod, path: String, query: String = "", fields: [(name: String, value: String)], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.query = query
        self.fields = fields
        self.body = body
    }

    /// The value of the field `name` (lower case), or nil; the parser refused duplicates of the fields
    /// whose meaning a duplicate would make ambiguous.
    public func field(_ name: String) -> String? {
        fields.first { $0.name == name }?.value
    }

    /// A query parameter's value (`name=value`, form-decoded), or nil.
    public func queryValue(_ name: String) -> String? {
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, String(parts[0]) == name else { continue }
            return String(parts[1]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
        }
        return nil
    }

    /// Cookies sent in the `Cookie` field, by name (RFC 6265 §5.4: "name=value; name=value").
    public func cookie(_ name: String) -> String? {
        guard let header = field("cookie") else { return nil }
        for pair in header.split(separator: ";") {
            let trimmed = pair.drop { $0 == " " }
            let parts = trimmed.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2, String(parts[0]) == name { return String(parts[1]) }
        }
        return nil
    }

    /// Whether the request may change the vault: every method but GET and HEAD.
    public var isStateChanging: Bool { method != .get && method != .head }
}

/// The methods the console serves; any other is refused at parsing (501).
public enum HTTPMethod: String, Sendable, CaseIterable {
    case get = "GET", head = "HEAD", post = "POST", put = "PUT", delete = "DELETE"
}
