import Appliance
import CryptoVault
import Foundation
import PeerChannel
import Sync

/// Sync with the owner's paired devices on the devices page (issue 17, SECURITY.md §16.5 and §19.9):
/// each device's sync state as `vaultctl sync status` shows it, pausing and resuming it (recorded as
/// `sync.pause` and `sync.resume`; every record stays), and syncing now with one device, the same
/// exchange as `vaultctl sync now` (its address given, or heard from its announcement).
struct SyncRoutes {
    let vault: UnlockedVault
    /// How long "sync now" listens for the device's announcement when no address is given.
    static let discoverSeconds = 5.0
    /// How long "sync now" may take before it stops and says so: the page waits for it.
    static let deadlineSeconds = 120.0

    /// Each paired device's sync state, by fingerprint, for the devices list.
    func states() throws -> [String: [String: Any]] {
        let pairings = try vault.vault.familyPairings()
        let fingerprints = Dictionary(uniqueKeysWithValues: pairings.map { ($0.peer.deviceID, $0.peer.fingerprint) })
        return Dictionary(try SyncStatus.read(vault).compactMap { status in fingerprints[status.device].map { ($0, Self.json(status)) } }) { first, _ in first }
    }

    /// `pause` or `resume` sync with the device with this fingerprint.
    func setPaused(_ fingerprint: String, _ paused: Bool) throws -> [String: Any] {
        let pairing = try device(fingerprint)
        let changed = try SyncControl.setPaused(paused, device: pairing.peer.deviceID, in: vault)
        return ["paused": paused, "changed": changed]
    }

    /// `{address?}`: one exchange with the device now; answers what it did per project.
    func syncNow(_ fingerprint: String, _ body: JSONBody) throws -> [String: Any] {
        let pairing = try device(fingerprint)
        let address = try Self.address(of: pairing.peer, given: try body.optionalString("address"))
        let report: SyncRunReport
        do {
            // The channel's own waits end with the deadline too, so a request left to a stalled
            // peer does not hold its connection for the channel's usual 5 minutes.
            let client = try SyncInitiator.reaching(pairing.peer.deviceID, in: vault) {
                try ChannelClient(connectingTo: address, localKeys: vault.deviceKeys(), peer: pairing.peer,
                                  timeouts: ChannelTimeouts(idleSeconds: Self.deadlineSeconds))
            }
            report = try SyncInitiator(vault: vault, transport: ChannelSyncTransport(client), deadlineSeconds: Self.deadlineSeconds).run()
            HeardAddresses.shared.reached(pairing.peer.deviceID, at: address)
        } catch let error as SyncExchangeError {
            throw ConsoleError(.conflict, "sync with \(pairing.peer.name) stopped: \(error.message)")
        } catch let error as PeerChannelError {
            throw ConsoleError(.conflict, "could not reach \(pairing.peer.name) at \(address): \(error.message)")
        }
        // A project that did not wholly sync (left, its offer or records refused) is named (F20).
        return ["sent": report.sent, "received": report.received, "refused": report.refused,
                "projects_not_synced": report.projects.filter(\.notSynced).map(\.project.hex),
                "branches_made": report.projects.reduce(0) { $0 + $1.branchesMade },
                "documents_written": report.projects.reduce(0) { $0 + $1.documentsWritten }, "projects": report.projects.count]
    }

    private func device(_ fingerprint: String) throws -> FamilyPairing { try DeviceRoutes.pairing(fingerprint, in: vault) }

    static func address(of peer: DeviceProfile, given text: String?) throws -> SocketAddress {
        if let text, !text.isEmpty {
            do { return try SocketAddress(parsing: text) } catch { throw ConsoleError(.invalidBody, "not an address and port: \(text)") }
        }
        // Heard by the daemon's own listener (background sync), or listened for now.
        if let address = HeardAddresses.shared.address(of: peer.deviceID) { return address }
        let heard = (try? Discovery.listen(seconds: discoverSeconds) { $0.announcement.deviceID == peer.deviceID }) ?? []
        guard let found = heard.first(where: { $0.announcement.deviceID == peer.deviceID }) else {
            throw ConsoleError(.conflict, "\(peer.name) did not announce itself within \(Int(discoverSeconds)) s: give its address and port")
        }
        return found.channelAddress
    }

    static func json(_ status: SyncPeerStatus) -> [String: Any] {
        ["paused": status.paused, "last_sync_at": status.lastSyncAt ?? NSNull(), "last_attempt_at": status.lastAttemptAt ?? NSNull(),
         "last_error": status.lastError ?? NSNull(), "records_sent": status.recordsSent, "records_received": status.recordsReceived,
         "pending": status.pending, "projects_not_in_sync": status.notInSync.map(\.hex)]
    }
}
