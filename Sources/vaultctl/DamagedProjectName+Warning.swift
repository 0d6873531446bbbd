import Writing

/// What vaultctl says of a damaged project name (`DamagedProjectName`, R15-8).
extension DamagedProjectName {
    /// What is wrong and what the owner can do: a new name when the record alone is damaged (the
    /// project's documents are sealed apart from it), else the project from another device or a backup.
    var warning: String {
        let mend = recordAlone
            ? "'vaultctl project rename \(project.hex) NEW-NAME' gives it a name again (its documents are untouched)"
            : "'vaultctl repair' says what it mends; 'vaultctl repair --from DEVICE' takes the project from your own device that holds it"
        return "vaultctl: warning: the name of project \(project.hex) does not open (\(reason)): it is listed by its id, "
            + "and reached by its id; \(mend)"
    }
}
