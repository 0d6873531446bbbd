import CryptoVault

/// The writing model's tables, as one named list of migrations (SECURITY.md §4.1.1). Append only:
/// a migration that has landed is never edited, renamed or reordered; the next one goes at the end,
/// whichever part of the writing model (the binder, versions, edit events) it is for.
public enum WritingSchema {
    public static let module = ModuleSchema(module: "writing", migrations: [
    ])
}
