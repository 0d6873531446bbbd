import Appliance
import AuditChain
import CryptoVault
import Foundation
import PeerChannel
import PrivilegedSession
import Sync
import Writing
#if canImport(Glibc)
import Glibc
#endif

/// Whole-vault recovery from a paired device (SECURITY.md §13.6): `recover push` gives a paired
/// keeper the latest encrypted copy of the whole vault, `recover host` on the keeper hands it to a
/// fresh machine after a one-time code, and `recover --from` on that machine restores and verifies it.
enum RecoverCommand {
    static let push = Command("recover push", synopsis: "give a paired device an encrypted copy of the whole vault to keep",
                              usage: "--peer PEER", about: """
        Takes a fresh backup of the whole vault (as 'vaultctl backup' does: the database sealed to
        the vault's backup key, the bundles as stored ciphertext) and sends it to PEER, a paired
        device running 'vaultctl serve', which keeps it as the copy to rebuild this vault from if
        this device is lost. PEER checks the copy without any key (structure, digests, the whole
        audit log) and can read nothing in it. It keeps one copy per device and replaces it only
        with a newer one: a longer audit log that extends the kept one; an older copy is refused.
        The egress funnel clears the copy for PEER first (its size and SHA-256, as ciphertext), and
        both sides record the copy in their audit logs. With --file, an existing version 2 backup
        of this vault is sent instead.
        """, options: ReplicationCommands.peerOptions + [PeerSelection.option("the paired device that keeps the copy (name or fingerprint)"),
                                                          Option("--file", value: "FILE", "send this backup file of the vault instead of taking a fresh one")],
        json: true, examples: ["vaultctl recover push --peer desk --address 192.168.1.20:\(ChannelServer.defaultPort)"]) { arguments in
            try InMemoryMode.refuse("a whole-vault copy for a keeper", arguments)
            let unlocked = try VaultLocation.unlock(arguments)
            let client = try connect(arguments, unlocked)
            let sender = VaultCopySender(vault: unlocked, channel: client, clearing: try EgressFunnel(vault: unlocked))
            let progress = ProgressBar("sending", total: nil)
            let report = try arguments.value("--file").map { try sender.send($0) { progress.update($0) } }
                ?? sender.sendFreshCopy { progress.update($0) }
            progress.finish()
            if arguments.has("--json") {
                Output.json(["peer": DeviceCommand.json(client.peer), "sent": report.sent, "entries": report.offer.entries,
                             "bytes": report.offer.length, "sha256": ByteEncoding.hex(report.offer.sha256)])
                return
            }
            Output.line(report.sent
                ? "Sent \(client.peer.name) a copy of the whole vault (\(report.offer.length) bytes, audit log of \(report.offer.entries) entries) to keep."
                : "\(client.peer.name) already keeps a copy with this audit log (\(report.offer.entries) entries); nothing sent.")
        }

    static let host = Command("recover host", synopsis: "hand a paired device's kept copy to a fresh machine (shows a one-time code)",
                              usage: "--peer PEER [--address ADDR:PORT]", about: """
        On the device that keeps PEER's whole-vault copy ('vaultctl recover push'), prints a one-time
        recovery code and waits for 'vaultctl recover --from' on the machine that replaces PEER. The
        code works for 5 minutes and 3 failed attempts; read it to the person at the new machine,
        never send it over the network. The code authenticates the exchange (CPace, then an
        encrypted Noise channel); the copy travels encrypted and stays unreadable without PEER's
        passphrase, recovery key or shares. The handover, or each failed attempt, is recorded in
        this vault's audit log. PEER may be a device whose pairing was revoked since (a lost one):
        give its fingerprint. Stop 'vaultctl serve' on this vault first.
        """, options: Credentials.options + [PeerSelection.option("the device whose kept copy is handed over (name or fingerprint)"),
                                             Option("--address", value: "ADDR:PORT", "the address and port to listen on (default \(PairCommands.defaultListen); port 0 lets the system choose, and the chosen port is printed)")],
        json: true, examples: ["vaultctl recover host --peer laptop --address 192.168.1.20:7420"]) { arguments in
            let unlocked = try VaultLocation.unlock(arguments)
            let keys = try unlocked.deviceKeys()
            let source = try keptSource(try arguments.required("--peer"), in: unlocked)
            _ = try VaultCopyHandover.keptCopy(in: unlocked, for: source)
            let listener = try TCPListener(address: try SocketAddress(parsing: arguments.value("--address") ?? PairCommands.defaultListen))
            let lease = PairingCodeLease(code: try PairingCode.generate())
            let say: (String) -> Void = arguments.has("--json") ? { Output.note($0) } : { Output.line($0) }
            say("Recovery code: \(lease.code.displayed)")
            say("Listening on \(listener.address); the code works for 5 minutes and 3 failed attempts.")
            say("Handing over the copy of \(source.fingerprint)")
            let result = try serve(listener, handover: VaultCopyHandover(vault: unlocked, keys: keys, sourceDeviceID: source, lease: lease))
            if arguments.has("--json") {
                Output.json(["peer": ["device_id": source.hex, "fingerprint": source.fingerprint],
                             "recipient": result.recipient.description,
                             "entries": result.header.offer.entries, "bytes": result.header.offer.length,
                             "sha256": ByteEncoding.hex(result.header.offer.sha256)])
                return
            }
            Output.line("Handed the copy of \(source.fingerprint) (\(result.header.offer.length) bytes, SHA-256 \(ByteEncoding.hex(result.header.offer.sha256))) to \(result.recipient).")
        }

    static let recover = Command("recover", synopsis: "rebuild a lost vault from the copy a paired device keeps (asks for its code)",
                                 usage: "--address ADDR:PORT --into DIR", about: """
        On a fresh machine: connects to 'vaultctl recover host' at ADDR:PORT (--address, or --from
        as the same option), asks for the code it
        shows (on the terminal, or the first line of --code-file; never on the command line),
        receives the whole-vault copy over the channel that code authenticates, then restores it
        into DIR exactly as 'vaultctl restore-backup' does, with the vault's passphrase (or recovery
        key, or shares), and verifies it in full: the container, the audit log and every checkpoint,
        the database against the audit log, and every bundle under its compartment key. DIR must not
        hold a vault; it appears only complete. The restored vault's audit log records
        vault.recover, and the keeper's records the handover.
        """, options: Credentials.options + [Option("--address", value: "ADDR:PORT", "where 'vaultctl recover host' listens", aliases: ["--from"]),
                                             Option("--into", value: "DIR", "the new vault folder"),
                                             Option("--code-file", value: "PATH", "read the recovery code from the first line of PATH (- for stdin)")],
        json: true, examples: ["vaultctl recover --address 192.168.1.20:7420 --into ~/clinic-vault",
                               "vaultctl recover --address 192.168.1.20:7420 --into ~/clinic-vault --recovery-key-file key.txt"]) { arguments in
            let address = try SocketAddress(parsing: try arguments.required("--address"))
            let target = try arguments.required("--into")
            try BackupCommands.requireNewFolder(target)
            let (parent, name) = try BackupCommands.splitTarget(target)
            let code = try PairingCode(parsing: try typedCode(arguments))
            let received = (parent as NSString).appendingPathComponent(".recovering-\(getpid())-\(name).vaultbackup")
            defer { unlink(received) }
            let connection = try TCPConnection.connect(to: address, maximumFrameLength: PairingHost.maximumFrameLength,
                                                       timeoutSeconds: VaultCopyHandover.silenceSeconds)
            let progress = ProgressBar("receiving", total: nil)
            let (header, keeperKey) = try VaultCopyRecipient().receive(connection, code: code, into: try FileDescriptor.createExclusive(received)) {
                progress.update($0)
            }
            progress.finish()
            let credential = try Credentials.credential(from: arguments)
            var waits = RestoredWaits()
            let summary = try BackupCommands.restore(received, into: target, credential: { credential }) { staging, _ in
                waits = try verifyAndRecord(staging, credential: credential, details: [
                    .init("address", address.description), .init("keeper_key", ByteEncoding.hex(keeperKey)),
                    .init("sha256", ByteEncoding.hex(header.offer.sha256))])
            }
            if arguments.has("--json") {
                Output.json(["vault": target, "bundles": summary.bundles.count, "entries": header.offer.entries,
                             "sha256": ByteEncoding.hex(header.offer.sha256), "keeper_key": ByteEncoding.hex(keeperKey)]
                                .merging(try waits.json(vault: target)) { $1 })
                return
            }
            Output.line("Recovered the vault (\(summary.bundles.count) bundle(s), audit log of \(header.offer.entries) entries) into \(target); every bundle opens and the audit log verifies.")
            try waits.say(vault: target)
        }

    /// The full check with the key that restore-backup's checks leave out (every bundle's header and
    /// chunks under its compartment key), then `vault.recover` in the staged vault, which is closed
    /// before the rename (as restore-backup does). In the same transaction every project
    /// waits for one sync with an own device and every own device for the owner's word (`RestoredWaits`).
    private static func verifyAndRecord(_ staging: String, credential: UnlockCredential, details: [VaultEvent.Detail]) throws -> RestoredWaits {
        var waits = RestoredWaits()
        do {
            let staged = try Vault.open(at: staging, journal: AuditLog(), modules: VaultModules.all)
            let unlocked = try staged.unlock(with: credential)
            if let first = try unlocked.storedBundlesNeedingRestore().first {
                throw CommandError(message: "the copy is refused: bundle \(first.bundle.idString) does not open: \(first.reason.message)",
                                   exitCode: .dataError)
            }
            let identity = try staged.deviceProfile()
            waits = try unlocked.transaction { tx in
                try tx.record(VaultEvent(.vaultRecover, details: details))
                return try RestoredWaits.mark(in: tx, identity: identity)
            }
            waits.colleagues = try RestoredWaits.colleagues(in: unlocked)
            try staged.finishCommand()
        }
        try DurableFile.syncDirectory(staging)
        return waits
    }

    /// Serves one attempt after another until the copy is handed over or the code dies.
    private static func serve(_ listener: TCPListener, handover: VaultCopyHandover) throws -> VaultCopyHandoverResult {
        var handover = handover
        let lobby = PairingLobby(listener: listener, maximumFrameLength: PairingHost.maximumFrameLength,
                                 timeoutSeconds: VaultCopyHandover.silenceSeconds)
        while true {
            try checkUsable(handover.lease)
            guard let connection = try lobby.next(waitSeconds: min(1, handover.lease.remainingSeconds)) else { continue }
            do {
                return try handover.serve(connection)
            } catch let error as PeerChannelError {
                Output.note("vaultctl: recovery attempt from \(connection.peer) failed: \(error.message)")
            }
        }
    }

    /// The device `--peer` names: a paired one (name or fingerprint), or, since a lost device's
    /// pairing may have been revoked after its copy was kept, the fingerprint of a device whose copy
    /// this vault still keeps.
    private static func keptSource(_ text: String, in unlocked: UnlockedVault) throws -> DeviceID {
        do {
            return try PeerSelection.pairing(text, in: unlocked.vault.familyPairings()).peer.deviceID
        } catch {
            guard let id = try? DeviceID(hex: text.filter { $0 != "-" }),
                  (try? VaultCopyHandover.keptCopy(in: unlocked, for: id)) != nil else { throw error }
            return id
        }
    }

    /// The lease's refusal in the words of a recovery code.
    private static func checkUsable(_ lease: PairingCodeLease) throws {
        do {
            try lease.checkUsable()
        } catch {
            throw PeerChannelError(error.code, error.code == .pairingCodeExpired
                ? "the recovery code expired after \(Int(PairingCodeLease.lifetimeSeconds / 60)) minutes; run 'vaultctl recover host' again for a new one"
                : "the recovery code failed \(PairingCodeLease.maximumFailedAttempts) times and is dead; run 'vaultctl recover host' again for a new one")
        }
    }

    private static func connect(_ arguments: ParsedArguments, _ unlocked: UnlockedVault) throws -> ChannelClient {
        let pairing = try PeerSelection.pairing(try arguments.required("--peer"), in: unlocked.vault.familyPairings())
        let address = try PeerChannelCommands.peerAddress(pairing.peer, given: arguments.value("--address"), arguments)
        return try ChannelClient(connectingTo: address, localKeys: unlocked.deviceKeys(), peer: pairing.peer)
    }

    private static func typedCode(_ arguments: ParsedArguments) throws -> SecureBytes {
        if let path = arguments.value("--code-file") { return try SecretInput.firstLine(ofFile: path, what: "recovery code") }
        do {
            return try SecretInput.prompt("Recovery code: ")
        } catch let error as CommandError where error.exitCode == .usage {
            throw CommandError(message: "there is no terminal to ask for the recovery code", exitCode: .usage,
                               hint: "pass --code-file PATH (or - for standard input)")
        }
    }
}
