import AuditChain
import CryptoVault
import PrivilegedSession

/// How `open` and `get` read a bundle: an ordinary compartment's directly; a privileged one's only
/// inside a privileged processing session, here a one-command session opened with `--purpose` (it
/// records its start, the read and its end, and wipes its keys when the command ends).
enum BundleReading {
    static let purposeOption = OptionSpec(name: "--purpose", kind: .value)
    static let purposeHelp = """
          --purpose TEXT        why you read it; required for a privileged compartment, whose bundles
                                open only in a session. Sealed in the audit log, but like any argument
                                visible to other local users while vaultctl runs: name no patient in it.
        """

    static func read(_ source: BundleSource, arguments: ParsedArguments, vault: UnlockedVault, action: VaultAction) throws {
        guard let compartment = privilegedCompartment(of: source, vault: vault) else {
            let opened: OpenedBundle
            switch source {
            case .stored(let bundleID): opened = try vault.openStored(bundleID)
            case .file(let descriptor): opened = try EncryptedBundle.open(descriptor, vault: vault)
            }
            try BundleCommands.writePlaintext(of: opened, arguments: arguments, vault: vault, action: action)
            return
        }
        guard let purpose = arguments.value("--purpose") else {
            throw CommandError(message: "compartment '\(compartment.name)' is privileged: its bundles are read only inside a privileged processing session",
                               exitCode: .permissionDenied, hint: "add --purpose TEXT (why you read it) to open it in a one-command session")
        }
        try readInSession(source, compartment: compartment, purpose: purpose, arguments: arguments, vault: vault)
    }

    /// The bundle's compartment if it is a privileged one of this vault. Anything else (an ordinary
    /// compartment, a foreign or damaged bundle) takes the ordinary path, which says what is wrong.
    private static func privilegedCompartment(of source: BundleSource, vault: UnlockedVault) -> VaultCompartment? {
        let compartment: VaultCompartment?
        switch source {
        case .stored(let bundleID): compartment = try? vault.storedBundle(bundleID).compartment
        case .file(let descriptor):
            compartment = (try? EncryptedBundle.readHeader(descriptor)).flatMap { header in
                header.vaultID == vault.vault.vaultID ? try? vault.compartment(withID: header.compartmentID) : nil
            }
        }
        return compartment?.isPrivileged == true ? compartment : nil
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

/// Where and how much plaintext `open` and `get` write: -o/--output, --force, --range, --threads.
struct PlaintextRequest {
    let threads: Int
    let range: Range<UInt64>?
    let output: OutputTarget

    init(_ arguments: ParsedArguments) throws {
        threads = try arguments.integer("--threads", in: 1...256) ?? BundleThreads.available
        range = try arguments.value("--range").map { try BundleCommands.parseRange($0, usage: arguments.usage) }
        output = try OutputTarget(arguments.value("-o") ?? arguments.value("--output"), force: arguments.has("--force"))
    }
}
