import Appliance
import AuditChain
import CryptoVault
import Foundation
import Sync
import Writing

/// The copies `vaultctl repair --from` keeps in `VAULT/damaged/` (SECURITY.md §19.10; attack review
/// s8, F2). Each is the whole vault as it was: every compartment's keys and sealed records under the
/// keyslots of that moment. So vaultctl opens one only read-only, and a command whose promise a copy
/// would break (`compartment destroy`: its keys are gone; `passwd`: the old passphrase opens nothing)
/// names the copies and is refused until `--remove-kept-copies` removes them with it (recorded).
enum KeptCopies {
    static let option = Option("--remove-kept-copies",
                               "also remove the copies 'vaultctl repair' kept in VAULT/damaged/ (recorded); without it, refused while any is there")

    /// A kept copy opened read-write would change at the first look (its log checkpointed) and be a
    /// second instance of this device, with its keys: refused before anything opens it, unless the
    /// command opens it read-only (`audit verify --read-only`).
    static func refuseOpening(_ path: String, _ arguments: ParsedArguments) throws {
        let directory = VaultLocation.realDirectory(arguments)
        guard DamagedStoreCopy.isKeptCopy(directory), !arguments.has("--read-only") else { return }
        throw CommandError(message: """
            \(directory) is a copy 'vaultctl repair' kept for inspection: '\(path)' would open it read-write, changing it and making \
            it a second instance of this device
            """, exitCode: .failure, hint: "'vaultctl audit verify --read-only --vault \(directory)' reads it without writing")
    }

    static let readOption = Option("--read-only", "read a copy 'vaultctl repair' kept (--vault VAULT/damaged/NAME) from a copy in memory, writing nothing to it")

    /// `doc show|list --read-only` (review 17 s9, N-s9-6): words only a kept copy holds are read back
    /// from a copy of its files in memory (`InMemoryMode.readKeptCopy`), never by opening them.
    static func readIfAsked(_ arguments: ParsedArguments) throws {
        guard arguments.has(readOption.name) else { return }
        let directory = VaultLocation.realDirectory(arguments)
        guard DamagedStoreCopy.isKeptCopy(directory) else {
            throw CommandError(message: "--read-only reads a copy 'vaultctl repair' kept (--vault VAULT/damaged/NAME); \(directory) is not one",
                               exitCode: .usage)
        }
        try InMemoryMode.readKeptCopy(directory)
    }

    /// Runs `read` (a `doc list|show --read-only` of a kept copy) and turns the database's own error,
    /// when the copy's writing tables do not read (a table dropped: the damage the repair left behind),
    /// into damaged data naming the copy, exit 65, never a raw SQL text with exit 1 (reviewer s17, F17-6).
    static func reading<Result>(_ arguments: ParsedArguments, _ read: () throws -> Result) throws -> Result {
        do {
            return try read()
        } catch let error as CryptoVaultError where error.code == .database && arguments.has(readOption.name) {
            let directory = VaultLocation.realDirectory(arguments)
            throw CommandError(message: "the copy 'vaultctl repair' kept in \(directory) does not read as a writing store (\(sqliteReason(of: error.message)))",
                               exitCode: .dataError,
                               hint: "its words are in its sealed records only, which no command reads without those rows; 'vaultctl restore-backup FILE --into DIR' brings back a backup made before the damage")
        }
    }

    /// The reason SQLite gave ("no such table: writing_blocks"), without the statement.
    private static func sqliteReason(of message: String) -> String {
        guard let open = message.firstIndex(of: "("), let close = message.range(of: ") in: ") else { return "a database error" }
        return String(message[message.index(after: open)..<close.lowerBound])
    }

    /// Records in the live vault (the one whose `damaged/` holds the copy) that `command` read the kept
    /// copy: which copy, project and document, never a title or a word (closing note s10: the read's
    /// own entries go with the copy in memory). Called after the read and before anything is printed:
    /// a read that cannot be recorded prints nothing. The live vault is opened itself (never its
    /// in-memory copy) and unlocked with the same credential.
    static func recordRead(_ arguments: ParsedArguments, command: String, project: ProjectID, document: NodeID? = nil) throws {
        guard arguments.has(readOption.name) else { return }
        let kept = URL(fileURLWithPath: VaultLocation.realDirectory(arguments)).resolvingSymlinksInPath().standardizedFileURL.path
        guard DamagedStoreCopy.isKeptCopy(kept) else { return }
        let live = ((kept as NSString).deletingLastPathComponent as NSString).deletingLastPathComponent
        let vault = try Vault.open(at: live, journal: AuditLog(), modules: VaultModules.all)
        OpenedVaults.shared.add(vault)
        let unlocked = try vault.unlock(with: try Credentials.credential(from: arguments, prompt: "Passphrase of \(live): "))
        var details: [VaultEvent.Detail] = [.init("kept", (kept as NSString).lastPathComponent), .init("command", command), .init("project", project.hex)]
        if let document { details.append(.init("document", document.hex)) }
        try unlocked.record(VaultEvent(.syncRepairKeptRead, details: details))
    }

    /// The vault's kept copies; refused (naming them and `consequence`) while there are any and
    /// --remove-kept-copies was not given.
    static func refuseKeeping(_ arguments: ParsedArguments, command: String, consequence: String) throws -> [String] {
        let copies = DamagedStoreCopy.kept(in: VaultLocation.realDirectory(arguments))
        guard !copies.isEmpty, !arguments.has(option.name) else { return copies }
        throw CommandError(message: """
            '\(command)' is refused while 'vaultctl repair' keeps copies of this vault (\(copies.joined(separator: ", "))): \(consequence)
            """, exitCode: .failure,
            hint: "add --remove-kept-copies to remove them with it (recorded in the audit log), after inspecting them if you must")
    }

    /// Removes `copies` (recorded as `sync.repair-kept-remove`, because `command`); the paths removed.
    static func remove(_ copies: [String], _ unlocked: UnlockedVault, because command: String) throws -> [String] {
        copies.isEmpty ? [] : try DamagedStoreCopy.removeAll(unlocked, because: command)
    }
}
