/// The one error type of PrivilegedSession: a code that tests and callers match on, and a message for
/// people. Messages never quote the checked text, which may be the very identifier that must not leak;
/// equality compares codes only.
public struct PrivilegedSessionError: Error, Equatable, CustomStringConvertible, Sendable {
    public enum Code: String, Sendable {
        /// A character an identifier of that kind cannot contain.
        case invalidCharacter
        /// An identifier with too few or too many characters.
        case wrongLength
        /// Check digits outside the range their scheme can produce.
        case invalidCheckDigits
        /// A well-formed identifier whose check digits do not match.
        case checksumMismatch
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    public static func == (lhs: PrivilegedSessionError, rhs: PrivilegedSessionError) -> Bool { lhs.code == rhs.code }
}
