import CryptoVault
import Foundation
import PeerChannel
import PrivilegedSession

/// `replicate` and `restore`: copies of this vault's bundles kept by a paired device, as ciphertext it
/// cannot open, and the way back (SECURITY.md §9.13).
enum ReplicationCommands {
    /// How both commands find the peer, and unlock this vault.
    static let peerOptions = [
        Option("--address", value: "ADDR:PORT",
               "where the peer's channel listens (default: listen for its announcement, which is only a hint: the channel checks the key pinned at pairing)"),
        Option("--seconds", value: "N", "how long to listen for the announcement without --address (default \(PeerChannelCommands.defaultDiscoverSeconds))"),
        Option("--announcements", value: "ADDR:PORT", "where to listen for announcements (default 0.0.0.0:\(Announcement.defaultPort))"),
    ] + Credentials.options

    static let replicate = Command("replicate", synopsis: "send a paired device the bundles it lacks (it cannot read them)", usage: "--peer PEER", about: """
        Connects to PEER (a paired device's name or fingerprint) over the encrypted channel and sends
        it a copy of every stored bundle it does not hold yet, or of one compartment's. The peer keeps
        the ciphertext, which it has no key to open, checks each bundle's SHA-256 and header on
        arrival, and records it in its audit log; this vault records each bundle sent. A transfer that
        was interrupted continues where it stopped. The peer must run 'vaultctl serve'.
        """, options: peerOptions + [Option("--peer", value: "PEER", "the paired device to send to (name or fingerprint)", aliases: ["--to"]), Option("--compartment", value: "NAME", "only this compartment's bundles")], json: true, examples: ["vaultctl replicate --peer desk --address 192.168.1.20:\(ChannelServer.defaultPort)"]) { arguments in
            let unlocked = try VaultLocation.unlock(arguments)
            let compartment = try arguments.value("--compartment").map { try unlocked.compartment(named: $0) }
            let client = try connect(arguments, peerOption: "--peer", unlocked)
            let progress = ProgressBar("replicating", total: nil)
            let report = try Replicator(vault: unlocked, channel: client, clearing: try EgressFunnel(vault: unlocked)).replicate(compartment: compartment) { progress.update($0) }
            progress.finish()
            if arguments.has("--json") {
                Output.json(["peer": DeviceCommand.json(client.peer), "sent": report.sentBundles.map(\.hex),
                             "unchanged": report.unchangedBundles, "bytes_sent": report.bytesSent])
                return
            }
            Output.line("Sent \(report.sentBundles.count) bundle(s), \(report.bytesSent) bytes, to \(client.peer.name); \(report.unchangedBundles) already there.")
        }

    static let restore = Command("restore", synopsis: "bring back lost or damaged bundle files from a paired device", usage: "--peer PEER", about: """
        Checks every stored bundle's file (present, the right size, its header and every chunk
        verifying with this vault's keys) and fetches each one that is missing or damaged from the
        copy PEER keeps. A copy is put back only if it verifies as the bundle this vault lists;
        otherwise it is refused and the old file left alone. Each restored bundle is recorded in the
        audit log. Exits 0 only if every bundle that needed it was restored. A vault whose assets/
        folder is gone altogether gets a new, empty one first, and every bundle is fetched into it.
        """, options: peerOptions + [Option("--peer", value: "PEER", "the paired device that keeps copies (name or fingerprint)", aliases: ["--from"])], json: true, examples: ["vaultctl restore --peer desk --address 192.168.1.20:\(ChannelServer.defaultPort)"]) { arguments in
            if try Vault.recreateMissingAssets(in: VaultLocation.directory(arguments)) {
                Output.note("The vault's assets/ folder was missing: recreated it empty; every bundle will be fetched.")
            }
            let unlocked = try VaultLocation.unlock(arguments)
            let client = try connect(arguments, peerOption: "--peer", unlocked)
            let progress = ProgressBar("restoring", total: nil)
            let report = try VaultRestorer(vault: unlocked, channel: client).restore { progress.update($0) }
            progress.finish()
            if arguments.has("--json") {
                Output.json(["peer": DeviceCommand.json(client.peer), "restored": report.restoredBundles.map(\.hex),
                             "unavailable": report.unavailableBundles.map(\.hex),
                             "refused": report.refusedBundles.map { ["bundle": $0.bundleID.hex, "reason": $0.reason.code.rawValue] },
                             "bytes_received": report.bytesReceived])
            } else {
                printReport(report, peer: client.peer)
            }
            guard report.isComplete else {
                throw CommandError(message: "\(report.unavailableBundles.count + report.refusedBundles.count) bundle(s) could not be restored from \(client.peer.name)",
                                   exitCode: report.refusedBundles.isEmpty ? .noInput : .dataError,
                                   hint: "try another paired device with 'vaultctl restore --peer PEER'")
            }
        }

    private static func printReport(_ report: RestoreReport, peer: DeviceProfile) {
        if report.restoredBundles.isEmpty && report.isComplete { Output.line("Every stored bundle verifies; nothing to restore.") }
        for bundle in report.restoredBundles { Output.line("restored  \(bundle.hex)") }
        for bundle in report.unavailableBundles { Output.line("missing   \(bundle.hex)  (\(peer.name) holds no complete copy)") }
        // The reason in plain words; the code name (for scripts) is in --json's "reason".
        for (bundle, reason) in report.refusedBundles { Output.line("refused   \(bundle.hex)  (\(reason.message))") }
    }

    /// The channel to the paired device named by `peerOption`, at --address or where it announced itself.
    private static func connect(_ arguments: ParsedArguments, peerOption: String, _ unlocked: UnlockedVault) throws -> ChannelClient {
        let pairing = try PeerSelection.pairing(try arguments.required(peerOption), in: unlocked.vault.familyPairings())
        let address = try PeerChannelCommands.peerAddress(pairing.peer, given: arguments.value("--address"), arguments)
        return try ChannelClient(connectingTo: address, localKeys: unlocked.deviceKeys(), peer: pairing.peer)
    }
}
