import Appliance
import AuditChain
import CryptoVault
import PrivilegedSession
#if canImport(Glibc)
import Glibc
#endif

/// How `open` and `get` read a bundle: an ordinary compartment's directly; a privileged one's only
/// inside a privileged processing session, here a one-command session opened with `--purpose` (it
/// records its start, the read and its end, and wipes its keys when the command ends).
enum BundleReading {
    static let purposeOption = Option("--purpose", value: "TEXT",
                                      "why you read it; required for a privileged compartment, whose bundles open only in a session. "
                                      + "Sealed in the audit log, but like any argument visible to other local users while vaultctl runs: name no patient in it")

    static let daemonOptions = [
        Option("--session", value: "ID", "read through this session of the running daemon (default: the newest session of the bundle's compartment)"),
        DaemonSocket.option,
    ]
    /// Said in the help of `open` and `get`.
    static let daemonNote = """
        While 'vaultctl serve' runs for the vault and --purpose is not given, the daemon reads the
        bundle (no passphrase asked): a privileged one only through a session started with
        'vaultctl session start'.
        """

    /// The options of `open` and `get`, which write plaintext.
    static let plaintextOptions = [
        Option.output("where to write the plaintext (- or nothing: standard output)"),
        Option("--range", value: "START:END", "only bytes START up to (not including) END, reading only their chunks"),
        BundleCommands.threadsOption, Option.force, purposeOption,
    ] + daemonOptions + Credentials.options

    /// Reads through the running daemon unless `--purpose` asks for a one-command session here;
    /// true if the daemon did it.
    static func readThroughDaemon(_ target: DaemonClient.ReadTarget, arguments: ParsedArguments) throws -> Bool {
        guard arguments.value("--purpose") == nil else { return false }
        if try DaemonClient.read(target, arguments: arguments) { return true }
        guard arguments.value("--session") == nil else {
            throw ApplianceError(.noDaemon, "--session needs the daemon, and none serves this vault")
        }
        return false
    }

    /// Reads `source` to the output `arguments` name; the library records the read (`bundle.open`,
    /// `bundle.get`, or the session's `session.read`).
    static func read(_ source: BundleSource, arguments: ParsedArguments, vault: UnlockedVault) throws {
        guard let compartment = BundleReads.privilegedCompartment(of: source, vault: vault) else {
            try BundleCommands.writePlaintext(of: try BundleReads.openOrdinary(source, vault: vault), arguments: arguments)
            return
        }
        guard let purpose = arguments.value("--purpose") else {
            throw CommandError(message: "compartment '\(compartment.name)' is privileged: its bundles are read only inside a privileged processing session",
                               exitCode: .permissionDenied, hint: "add --purpose TEXT (why you read it) to open it in a one-command session")
        }
        try readInSession(source, compartment: compartment, purpose: purpose, arguments: arguments, vault: vault)
    }

    private static func readInSession(_ source: BundleSource, compartment: VaultCompartment, purpose: String,
                                      arguments: ParsedArguments, vault: UnlockedVault) throws {
        let request = try PlaintextRequest(arguments)
        let session = try PrivilegedProcessingSession.start(vault: vault, compartment: compartment, actor: AuditLog.currentAccount(),
                                                            purpose: purpose)
        do {
            let progress = ProgressBar("opening", total: nil)
            try request.output.produce { output in
                try session.read(source, range: request.range, threads: request.threads) { bytes in
                    try output.write(bytes)
                    progress.update(output.bytesWritten)
                }
                progress.finish()
            }
        } catch {
            try? session.end()
            throw error
        }
        try session.end()
    }
}

/// Where and how much plaintext `open` and `get` write: -o, --force, --range, --threads.
struct PlaintextRequest {
    let threads: Int
    let range: Range<UInt64>?
    let output: OutputTarget

    /// Plaintext is binary as often as not: like `seal`, `open` and `get` write none to a terminal.
    static func refuseTerminal(_ arguments: ParsedArguments) throws {
        let option = arguments.value("-o")
        guard option == nil || option == "-", isatty(STDOUT_FILENO) == 1 else { return }
        throw CommandError(message: "refusing to write the plaintext to a terminal", exitCode: .usage,
                           hint: "add -o FILE, or pipe it (vaultctl open BUNDLE | less)")
    }

    init(_ arguments: ParsedArguments) throws {
        threads = try arguments.integer("--threads", in: 1...256) ?? BundleThreads.available
        range = try arguments.value("--range").map { try BundleCommands.parseRange($0, usage: arguments.usage) }
        output = try OutputTarget(arguments.value("-o"), force: arguments.has("--force"))
    }
}
