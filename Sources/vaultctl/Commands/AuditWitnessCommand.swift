import AuditChain
import CryptoVault
import Foundation
import PeerChannel

/// `vaultctl audit witness`: a paired device cosigns this vault's latest checkpoint over the channel
/// (SECURITY.md §9.11).
enum AuditWitnessCommand {
    static let command = Command("audit witness", synopsis: "have a paired device cosign the latest checkpoint", usage: "--peer PEER --address ADDR:PORT", about: """
        Connects to PEER (a paired device's name or fingerprint) where its 'vaultctl serve' listens,
        over the encrypted channel, and asks it to witness this vault's audit log: it cosigns the
        latest checkpoint only if it extends the last one it cosigned for this vault (a consistency
        proof), and refuses a log that was cut back or forked. Its cosignature is checked against
        PEER's key pinned at pairing and kept; 'vaultctl audit verify' lists it. Both the cosignature
        and a refusal are recorded in the audit log. Exit 0 when cosigned, 1 when refused or when
        the cosignature does not verify, 74 when PEER cannot be reached.
        """, options: Credentials.options + [Option("--peer", value: "PEER", "the witness: a paired device's name or fingerprint ('vaultctl peers list')"), Option("--address", value: "ADDR:PORT", "where PEER's 'vaultctl serve' listens")], json: true, examples: ["vaultctl audit witness --peer desk --address 192.168.1.20:\(ChannelServer.defaultPort)"]) { arguments in
            let peerName = try arguments.required("--peer")
            let address = try SocketAddress(parsing: try arguments.required("--address"))
            let unlocked = try VaultLocation.unlock(arguments)
            let pairing = try PeerSelection.pairing(peerName, in: unlocked.vault.familyPairings())
            let client = try ChannelClient(connectingTo: address, localKeys: unlocked.deviceKeys(), peer: pairing.peer)
            let received = try WitnessClient(vault: unlocked).requestCosignature(over: client)
            if arguments.has("--json") {
                Output.json(["witness": DeviceCommand.json(pairing.peer), "tree_size": received.treeSize, "epoch": received.epoch,
                             "cosigned_at": Output.timestamp(Int64(received.cosignedAt)), "cosigned_checkpoint": received.cosignedNote])
                return
            }
            Output.line("\(pairing.peer.name) (\(pairing.peer.fingerprint)) cosigned the checkpoint of \(received.treeSize) entries at \(Output.timestamp(Int64(received.cosignedAt))).")
        }
}
