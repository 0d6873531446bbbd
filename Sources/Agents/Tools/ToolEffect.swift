/// What calling a tool can do, which decides who may call it and when (SECURITY.md §18.1).
public enum ToolEffect: String, Sendable, CaseIterable, Comparable {
    /// Reads from the vault or computes; changes nothing and reaches nothing outside.
    case readOnly = "read-only"
    /// Its only effect is a branch (an AI suggestion) a person may adopt or discard.
    case writesBranch = "writes-branch"
    /// Reaches outside the vault (a web page, an MCP server, any program): what it is sent may
    /// leave, and what it returns is untrusted.
    case openWorld = "open-world"

    public static func < (lhs: ToolEffect, rhs: ToolEffect) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
