import Writing

/// A change of what a project holds beside its binder and versions (SECURITY.md §19.2, operations
/// 0x09 and 0x0A): its entries (characters, places, plot beats, snippets: §14.5) and its own name
/// and archived flag. Each is a last-writer-wins register (§19.3), as a binder node is: an entry or
/// a name is written whole, and has no words to merge.
public enum ProjectOperation: Sendable, Hashable {
    /// 0x09: an entry written (whole) or removed.
    case entry(EntryID, EntryValue)
    /// 0x0A 0x01: the project renamed.
    case name(String)
    /// 0x0A 0x02: the project archived at a time (Unix seconds), or brought back (nil).
    case archived(Int64?)
}

/// What an entry holds at one point of its history.
public enum EntryValue: Sendable, Hashable {
    case removed
    case present(ProjectEntry)
}
