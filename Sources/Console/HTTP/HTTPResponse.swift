import Foundation

/// A response of the console's server. Every response carries the same protective fields
/// (SECURITY.md §16.3): a Content-Security-Policy that lets the page load and run only what this
/// server serves, no caching anywhere (privileged text must not stay in the browser's cache), no
/// framing, no sniffing, no referrer; and the connection closes after it.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var fields: [(name: String, value: String)]
    public var body: [UInt8]
    /// A response that streams (server-sent events): called with a writer once the head is sent; it
    /// returns when it is done, when a write fails, or when `stopping` says the server stops.
    public var stream: (@Sendable (_ write: (String) throws -> Void, _ stopping: () -> Bool) -> Void)?

    public init(status: Int, fields: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.fields = fields
        self.body = body
    }

    /// A stream of server-sent events (`text/event-stream`), with no length: the connection ends it.
    public static func eventStream(_ body: @escaping @Sendable (_ write: (String) throws -> Void, _ stopping: () -> Bool) -> Void) -> HTTPResponse {
        var response = HTTPResponse(status: 200, fields: [("Content-Type", "text/event-stream; charset=utf-8")])
        response.stream = body
        return response
    }

    /// A stream of JSON lines (`application/x-ndjson`), one object per line, with no length: for a
    /// long call whose progress the page shows as it comes (an assistant run).
    public static func jsonLines(_ body: @escaping @Sendable (_ write: (String) throws -> Void, _ stopping: () -> Bool) -> Void) -> HTTPResponse {
        var response = HTTPResponse(status: 200, fields: [("Content-Type", "application/x-ndjson; charset=utf-8")])
        response.stream = body
        return response
    }

    /// `default-src 'self'` with nothing weaker anywhere: no inline script or style, no eval, no
    /// plug-ins, no framing, forms and the base URL only to this server.
    public static let contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
        + "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    static let protectiveFields: [(name: String, value: String)] = [
        ("Content-Security-Policy", contentSecurityPolicy),
        ("Cache-Control", "no-store"),
        ("X-Content-Type-Options", "nosniff"),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "no-referrer"),
        ("Cross-Origin-Opener-Policy", "same-origin"),
        ("Cross-Origin-Resource-Policy", "same-origin"),
        ("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=(), usb=()"),
    ]

    /// `value` as JSON; a value JSONSerialization cannot write is a 500, never an empty answer.
    public static func json(_ value: Any, status: Int = 200) -> HTTPResponse {
        guard JSONSerialization.isValidJSONObject(value),
              let body = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            return HTTPResponse(status: 500, fields: [("Content-Type", "application/json; charset=utf-8")],
                                body: Array(#"{"error":"encodingFailed","message":"the answer could not be written as JSON"}"#.utf8))
        }
        return HTTPResponse(status: status, fields: [("Content-Type", "application/json; charset=utf-8")], body: Array(body))
    }

    /// An error as the page reads it: `{"error": code, "message": text}` with the code's status.
    public static func error(_ error: ConsoleError) -> HTTPResponse {
        json(["error": error.code.rawValue, "message": error.message], status: error.code.status)
    }

    public static func redirect(to location: String, fields: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse(status: 303, fields: [("Location", location)] + fields)
    }

    /// The bytes on the wire; a HEAD request gets the fields of the GET without its body.
    public func serialized(forHead: Bool = false) -> [UInt8] {
        var head = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
        for (name, value) in fields + Self.protectiveFields { head += "\(name): \(value)\r\n" }
        if stream == nil { head += "Content-Length: \(body.count)\r\n" }
        head += "Connection: close\r\n\r\n"
        return Array(head.utf8) + (forHead ? [] : body)
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 303: "See Other"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 423: "Locked"
        case 431: "Request Header Fields Too Large"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        default: status < 500 ? "Client Error" : "Server Error"
        }
    }
}
