import CryptoVault
import PeerChannel
@testable import Sync
import Synchronization
import Writing

/// A paired device that answers the exchange as it likes, on a real channel (SECURITY.md §19.9 read
/// as an attacker): it offers whatever projects it chooses with whatever access it claims, answers a
/// pull with the records it signed, and notes what the asking device pulled and pushed.
final class ForgingAnswerer: ChannelService {
    struct Log: Sendable {
        var offers: [SyncProjectOffer] = []
        var records: [ProjectID: [ChangeRecord]] = [:]
        var pulled: [ProjectID] = []
        var pushed: [ProjectID: Int] = [:]
        /// Projects whose pulls it refuses, with the exchange's code it gives.
        var refusedPulls: [ProjectID: SyncExchangeErrorCode] = [:]
        /// The signers of every record pushed to it, per project.
        var pushedSigners: [ProjectID: [DeviceID]] = [:]
        /// Devices it says it holds records of in every pull answer, besides its own.
        var claimedHeld: [DeviceID: UInt64] = [:]
    }

    let log = Mutex(Log())
    private let identity = Mutex<DeviceKeys?>(nil)

    /// The device it answers as: the keys the channel pinned for it (set once the fixture made them).
    func answer(as keys: DeviceKeys) { identity.withLock { $0 = keys } }
    var keys: DeviceKeys { identity.withLock { $0! } }

    var requestKinds: [String] { SyncWire.kinds }
    var author: SyncAuthor { SyncAuthor(device: keys.profile.deviceID, key: keys.signingKey) }
    var pulled: [ProjectID] { log.withLock { $0.pulled } }
    var pushed: [ProjectID: Int] { log.withLock { $0.pushed } }
    var pushedSigners: [ProjectID: [DeviceID]] { log.withLock { $0.pushedSigners } }
    var rosterEntry: SyncRosterEntry {
        SyncRosterEntry(device: keys.profile.deviceID, signingKey: keys.profile.signingPublicKey, noiseKey: keys.profile.noisePublicKey)
    }

    /// Offers a project id as it likes: any access, any privileged flag, any roster (itself when none).
    func offer(_ project: ProjectID, access: SyncAccess, origin: DeviceID? = nil, privileged: Bool, register: Register = .general,
               named name: String = "Offered", roster: [SyncRosterEntry]? = nil) {
        let offer = SyncProjectOffer(project: project, access: access, origin: origin, privileged: privileged, kind: .document, register: register,
                                     name: name, roster: roster ?? [rosterEntry])
        log.withLock { $0.offers.removeAll { $0.project == project }; $0.offers.append(offer) }
    }

    /// Offers `project` as `access`, naming only itself in the roster.
    func offer(_ project: WritingProject, access: SyncAccess) {
        let me = SyncRosterEntry(device: keys.profile.deviceID, signingKey: keys.profile.signingPublicKey, noiseKey: keys.profile.noisePublicKey)
        let offer = SyncProjectOffer(project: project.id, access: access, privileged: project.isPrivileged, kind: project.kind,
                                     register: project.register, name: "Offered", roster: [me])
        log.withLock { $0.offers.removeAll { $0.project == project.id }; $0.offers.append(offer) }
    }

    /// Offers a project this vault may not hold, named `name`, as the owner's own device would.
    func offer(_ project: ProjectID, named name: String) {
        let me = SyncRosterEntry(device: keys.profile.deviceID, signingKey: keys.profile.signingPublicKey, noiseKey: keys.profile.noisePublicKey)
        let offer = SyncProjectOffer(project: project, access: .mine, privileged: false, kind: .document, register: .general, name: name, roster: [me])
        log.withLock { $0.offers.append(offer) }
    }

    /// Signs its next record of `project`: a document it plants, after its previous record.
    @discardableResult
    func plant(in project: ProjectID) throws -> ChangeRecord {
        let previous = log.withLock { $0.records[project]?.last }
        let record = try ChangeRecord.make(project: project, author: author, counter: (previous?.counter ?? 0) + 1,
                                           lamport: (previous?.lamport ?? 0) + 1, parents: previous.map { [$0.hash] } ?? [],
                                           operations: [.node(try NodeID.random(), .present(kind: .scene, parent: nil, orderKey: "1k", title: "Planted"))])
        log.withLock { $0.records[project, default: []].append(record) }
        return record
    }

    /// Adds a record it signed (any operations) to what it answers pulls of `project` with.
    func keep(_ record: ChangeRecord) { log.withLock { $0.records[record.project, default: []].append(record) } }

    /// Says in every pull answer that it holds records of `devices` too (made up, say).
    func claimHeld(_ devices: [DeviceID: UInt64]) { log.withLock { $0.claimedHeld = devices } }

    /// Refuses every pull of `project` with `code`, as a daemon refuses in the exchange's terms.
    func refusePulls(of project: ProjectID, with code: SyncExchangeErrorCode) { log.withLock { $0.refusedPulls[project] = code } }

    func respond(to kind: String, body: [UInt8], from peer: DeviceProfile) throws -> [UInt8] {
        if kind == SyncWire.pullKind, let request = try? SyncPullRequest(parsing: body),
           let code = log.withLock({ $0.refusedPulls[request.project] }) {
            throw PeerChannelError(.peerRefused, "[\(code.rawValue)] refused by the forging answerer")
        }
        switch kind {
        case SyncWire.projectsKind:
            return SyncProjectsPage(more: false, offers: log.withLock { $0.offers }).serialized()
        case SyncWire.pullKind:
            let request = try SyncPullRequest(parsing: body)
            let (mine, claimed) = log.withLock { log in
                log.pulled.append(request.project)
                return (log.records[request.project] ?? [], log.claimedHeld)
            }
            let device = keys.profile.deviceID
            return SyncPullAnswer(more: false, held: claimed.merging(mine.isEmpty ? [:] : [device: UInt64(mine.count)]) { $1 },
                                  records: mine.filter { $0.counter > request.held[device] ?? 0 }.map(\.encoded)).serialized()
        case SyncWire.pushKind:
            let request = try SyncPushRequest(parsing: body)
            let signers = request.records.compactMap { try? ChangeRecordCodec.parse($0).device }
            log.withLock {
                $0.pushed[request.project, default: 0] += request.records.count
                $0.pushedSigners[request.project, default: []] += signers
            }
            return SyncPushAnswer(stored: request.records.count, refused: []).serialized()
        default:
            return SyncOffers.serializeTaken([])
        }
    }
}
