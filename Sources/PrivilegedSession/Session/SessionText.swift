/// The free text a session is opened with (its actor and purpose): it must say something, fit its
/// bound, and hold no control characters (it is shown to auditors and must not rewrite their screen).
enum SessionText {
    static func validate(_ text: String, as field: String, maximumBytes: Int) throws(PrivilegedSessionError) {
        guard !text.allSatisfy(\.isWhitespace) else {
            throw PrivilegedSessionError(.invalidSessionText, "the session's \(field) is empty: say who reads and why")
        }
        guard text.utf8.count <= maximumBytes else {
            throw PrivilegedSessionError(.invalidSessionText, "the session's \(field) is longer than \(maximumBytes) bytes")
        }
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw PrivilegedSessionError(.invalidSessionText, "the session's \(field) contains a control character")
        }
    }
}
