/// The shape of every module's error: a code that tests and callers match on, and a message for
/// people. Messages never contain secret material; equality compares codes only, so a test can ask
/// for the exact failure without quoting the message. Each module names its own instance
/// (`CryptoVaultError`, `AuditChainError`, ...) with its own `Code` enum.
public struct CodedError<Code: Hashable & Sendable>: Error, Equatable, CustomStringConvertible, Sendable {
    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    public static func == (lhs: CodedError, rhs: CodedError) -> Bool { lhs.code == rhs.code }
}
