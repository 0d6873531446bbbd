import Foundation

/// A request's JSON body, read strictly: an object at the top, and each field the route takes of
/// the type it takes; anything else is refused as `invalidBody` naming the field.
struct JSONBody {
    let object: [String: Any]

    init(_ request: HTTPRequest) throws(ConsoleError) {
        guard request.field("content-type")?.lowercased().hasPrefix("application/json") == true else {
            throw ConsoleError(.invalidBody, "the body must be application/json")
        }
        // A form post from another site cannot send this type without CORS, which this server never grants.
        guard let parsed = try? JSONSerialization.jsonObject(with: Data(request.body), options: []), let object = parsed as? [String: Any] else {
            throw ConsoleError(.invalidBody, "the body is not a JSON object")
        }
        self.object = object
    }

    func string(_ name: String) throws(ConsoleError) -> String {
        guard let value = object[name] as? String else { throw ConsoleError(.invalidBody, "'\(name)' must be a string") }
        return value
    }

    func optionalString(_ name: String) throws(ConsoleError) -> String? {
        guard let value = object[name], !(value is NSNull) else { return nil }
        guard let text = value as? String else { throw ConsoleError(.invalidBody, "'\(name)' must be a string") }
        return text
    }

    func array(_ name: String) throws(ConsoleError) -> [[String: Any]] {
        guard let value = object[name] as? [[String: Any]] else { throw ConsoleError(.invalidBody, "'\(name)' must be an array of objects") }
        return value
    }
}
