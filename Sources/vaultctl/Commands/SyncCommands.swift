import Appliance
import CryptoVault
import Foundation
import PeerChannel
import Sync
import Writing

/// `sync now|status|pause|resume` (issue 17, SECURITY.md §19.9): the writing model's change records
/// exchanged with paired devices over the encrypted channel.
enum SyncCommands {
    static let now = Command("sync now", synopsis: "sync projects with paired devices now", usage: "[--peer PEER] [--address ADDR:PORT]", about: """
        Connects to PEER (or to every paired device not paused, each found by its announcement, or
        where 'vaultctl serve --announce' running for this vault last heard it; someone else's device
        that shares no project with this vault either way is skipped, and said so, unless named)
        over the encrypted channel, where 'vaultctl serve --address' answers, and exchanges the writing
        model's change records: this vault's edits are committed as signed records, then each side
        gets the records it lacks, verified (signature, seal, causality) or refused and recorded.
        Your own devices ('mine') sync every project, privileged ones included; someone else's only
        the ordinary projects shared with it ('vaultctl share "project ID" --peer PEER --role
        viewer|editor'), a viewer's changes refused. Every record sent passes the egress funnel.
        Conflicting edits become branches of kind sync-conflict ('vaultctl conflicts').
        Exits 75 when every sync completed but a project did not wholly sync: left for the run
        (local-only, or a failure of that project alone), its offer refused, or any of its records
        refused either way; each is named with the reason ('vaultctl sync status' keeps them). An
        offer this vault declines by your standing choice (a project not shared with that device, a
        privileged project with a device not yours, someone else's project from a third device) is
        named as declined, and does not make the exit 75. A device that refuses every sync because
        its own sync state is damaged is named with what is wrong there and what mends it, there
        (exit 65); 'vaultctl sync status' then shows each project synced with it NOT IN SYNC with it,
        until a sync with it completes.
        """, options: ReplicationCommands.peerOptions + [PeerSelection.option("the paired device to sync with (name or fingerprint; default: every one not paused)")],
        json: true, examples: ["vaultctl sync now --peer desk --address 192.168.1.20:\(ChannelServer.defaultPort)", "vaultctl sync now"]) { arguments in
            let unlocked = try VaultLocation.unlock(arguments)
            let pairings = try unlocked.vault.familyPairings()
            let named = try arguments.value("--peer").map { [try PeerSelection.pairing($0, in: pairings)] }
            let paired = named ?? pairings.filter { pairing in (try? SyncStatus.read(unlocked).first { $0.device == pairing.peer.deviceID }?.paused) != true }
            if paired.count != 1, arguments.value("--address") != nil {
                throw UsageError(message: "--address names one device's address: give --peer too", usage: arguments.usage)
            }
            // Someone else's device that shares nothing is skipped unless named (F17-8): nothing to sync.
            let (chosen, skipped) = named == nil ? try SyncNowDevices.split(paired, in: unlocked) : (paired, [])
            // The devices whose address nobody gave or heard: one listen for all their announcements.
            let unknown = chosen.map(\.peer).filter { HeardAddresses.shared.candidates(of: $0.deviceID).isEmpty }
            let announced = arguments.value("--address") == nil && unknown.count > 1
                ? try PeerChannelCommands.announcedAddresses(of: unknown, arguments) : nil
            var results: [[String: Any]] = []
            var failure: Error?
            var damaged: [(message: String, remedy: String)] = []
            var notSynced: [String] = []
            for pairing in chosen {
                do {
                    let started = VaultClock.system.now()
                    let report = try sync(with: pairing, unlocked, arguments, announced: announced)
                    for project in report.projects {
                        guard let message = project.damaged else { continue }
                        damaged.append((message, try repairRemedy(project, peer: pairing.peer, unlocked)))
                    }
                    notSynced += report.projects.filter(\.notSynced).map { notSyncedText($0, peer: pairing.peer) }
                    results.append(json(report, peer: pairing.peer))
                    if !arguments.has("--json") {
                        // Which side of each block the document kept, and where the other is (merge-design §7).
                        printReport(report, peer: pairing.peer, mine: try unlocked.vault.trust(of: pairing.peer.deviceID) == .mine,
                                    conflicts: try ConflictSidesText.madeLines(report, since: started, in: unlocked))
                    }
                } catch {
                    // One device: its name is said here (several: the note below names each).
                    failure = chosen.count > 1 ? error : naming(error, pairing.peer)
                    results.append(["peer": DeviceCommand.json(pairing.peer), "error": FailureReport(error).message])
                    if chosen.count > 1 { Output.note("vaultctl: sync with \(pairing.peer.name) failed: \(FailureReport(error).message)") }
                }
            }
            results += skipped.map(SyncNowDevices.json)
            if arguments.has("--json") { Output.json(["peers": results]) } else { skipped.map(SyncNowDevices.line).forEach(Output.line) }
            if paired.isEmpty && !arguments.has("--json") { Output.line("No paired device to sync with.") }
            if let reason = InMemoryMode.reason, CommandHost.current == nil, !chosen.isEmpty {
                // The copy dies with this process: "Synced" alone claimed work the next command does not see (F17-5).
                Output.note("vaultctl: in-memory mode (\(reason)): what this sync received is in this command's copy in memory only and is "
                            + "gone when it ends; 'vaultctl serve' keeps its copy while it runs, and 'vaultctl repair --from DEVICE' rebuilds the store")
            }
            if let failure { throw failure }
            // The others synced; a damaged project stays left until it is mended: said, and the exit says it.
            if !damaged.isEmpty {
                throw CommandError(message: damaged.map(\.message).joined(separator: "; "), exitCode: .dataError,
                                   hint: damaged.map(\.remedy).joined(separator: "; "))
            }
            // Every run completed, but a project left for it or records refused either way is a
            // project that did not sync: the exit says it, so 'vaultctl sync now || alert' alerts
            // (attack review s8, F20).
            if !notSynced.isEmpty {
                throw CommandError(message: "not every project synced: " + notSynced.joined(separator: "; "), exitCode: .partial,
                                   hint: "'vaultctl sync status' shows each project's refusals, why and since when")
            }
        }

    static let status = Command("sync status", synopsis: "show sync with each paired device", about: """
        For each paired device: whose it is, whether sync with it is paused here, when the last sync
        completed (and, when the last try failed, when it was and why: a try of 'sync now' or of the
        daemon's background sync, one that could not reach the device too), the records sent and
        received, and how many records this vault holds that the device lacked at the last sync
        (edits not yet committed as records are committed by the next sync). Then each project:
        whether it syncs, or works local-only because its sync state here is damaged, and why (which
        record, and the failure's code) until 'vaultctl repair --from DEVICE'. A project some
        device's last sync left, or whose records are refused with a device either way (how many in
        the last sync, why, since when), is NOT IN SYNC with that device, never said to sync; so is
        one a device was found signing two histories of (a fork: named under the project, with the
        remedy). Under a project, what of it this device does not show because another project here
        holds the same ids (a colleague can copy ids), and which project keeps them: your own
        project over someone else's. A privileged project is checked in a privileged processing
        session of its compartment, recorded as every session is. A project of a vault restored from
        a backup names the devices it still waits for before it takes changes (SECURITY.md §19.10).
        """, options: Credentials.options, json: true, examples: ["vaultctl sync status", "vaultctl sync status --json"]) { arguments in
            let unlocked = try VaultLocation.unlock(arguments)
            VaultLocation.warnOfDamagedLinks(unlocked)
            // Damaged exchange tables are not read as if whole: sync is off, and says why.
            let problem = try SyncStatus.exchangeProblem(unlocked)
            let peers = problem == nil ? try SyncStatus.read(unlocked) : []
            let projects = try SyncStatus.projects(unlocked)
            // An offer refused here, of a project this vault does not hold: listed after the projects.
            let held = Set(projects.map(\.project))
            // A project destroyed on another device and here too: nothing more to say of it.
            let offersRefused = try SyncStatus.refusals(unlocked).filter { !held.contains($0.project) && !$0.shreddedThere }
            let own = Set(peers.filter { $0.trust == DeviceTrust.mine.rawValue }.map(\.device))
            if arguments.has("--json") {
                let exchange: [String: Any] = problem.map { ["state": "local-only", "reason": "sync state is damaged: \($0)"] } ?? ["state": "ready", "reason": NSNull()]
                // Each refused offer says whether the owner's standing choice declined it, as the text does (guard13, s13).
                let offers = offersRefused.map { json($0).merging(["declined": $0.declined(byOwnersChoiceAmong: own)]) { _, flag in flag } }
                Output.json(["exchange": exchange, "peers": peers.map(json),
                             "projects": try projects.map { project in
                                 var entry = json(project)
                                 entry["awaiting"] = try project.awaited.map { try RestoredWaits.json($0, in: unlocked) as Any } ?? NSNull()
                                 return entry
                             },
                             "offers_refused": offers])
                return
            }
            if let problem {
                Output.line("Sync is off, every project LOCAL-ONLY: sync state is damaged: \(problem). 'vaultctl repair' mends it.")
            }
            if peers.isEmpty && problem == nil { Output.line("No paired devices.") }
            let origins = try SharedProjectOrigin.all(in: unlocked)
            let awaited = try projects.compactMap { project in
                try project.awaited.map { (project.project, try RestoredWaits.describe($0, in: unlocked)) }
            }
            defer {
                printProjects(projects, offersRefused: offersRefused, own: own, origins: origins,
                              awaited: Dictionary(awaited, uniquingKeysWith: { first, _ in first }))
            }
            for peer in peers {
                let last = peer.lastSyncAt.map { Output.timestamp($0) } ?? "never"
                // When the failure was, too: a daemon retrying a device that is off keeps trying (F17-10).
                let error = peer.lastError.map { error in
                    ", last try\(peer.lastAttemptAt.map { " " + Output.timestamp($0) } ?? "") failed: \(error)"
                } ?? ""
                let notInSync = (peer.notInSync.isEmpty ? "" : "; \(peer.notInSync.count) project(s) NOT IN SYNC with it (below)")
                    + (peer.damaged.map { "; SYNC OFF with it: \($0)" } ?? "")
                Output.line("\(peer.name) (\(peer.device.fingerprint)), \(peer.trust ?? "other")\(peer.paused ? ", PAUSED" : ""): "
                            + "last sync \(last)\(error); sent \(peer.recordsSent), received \(peer.recordsReceived), pending \(peer.pending)\(notInSync)")
            }
        }

    static let pause = pausing(true)
    static let resume = pausing(false)

    private static func pausing(_ paused: Bool) -> Command {
        let verb = paused ? "pause" : "resume"
        return Command("sync \(verb)", synopsis: paused ? "pause sync with a paired device (or every one)" : "resume sync with a paired device (or every one)",
                       usage: "[--peer PEER]", about: paused ? """
            Pauses sync with PEER (or with every paired device) on this side: 'sync now' skips it and
            its sync requests are refused, until 'vaultctl sync resume'. Nothing is deleted: every
            record stays, and edits made meanwhile sync when it resumes. Recorded in the audit log.
            """ : """
            Resumes sync with PEER (or with every paired device) paused by 'vaultctl sync pause'.
            Recorded in the audit log.
            """, options: Credentials.options + [PeerSelection.option("the paired device (name or fingerprint; default: every one)")],
                       json: true, examples: ["vaultctl sync \(verb) --peer laptop"]) { arguments in
            let unlocked = try VaultLocation.unlock(arguments)
            let pairings = try unlocked.vault.familyPairings()
            let chosen = try arguments.value("--peer").map { [try PeerSelection.pairing($0, in: pairings)] } ?? pairings
            let changed = try chosen.filter { try SyncControl.setPaused(paused, device: $0.peer.deviceID, in: unlocked) }
            if arguments.has("--json") {
                Output.json(["paused": paused, "peers": chosen.map { DeviceCommand.json($0.peer) }, "changed": changed.count])
                return
            }
            Output.line(chosen.isEmpty ? "No paired devices." : "Sync \(paused ? "paused" : "resumed") with \(chosen.map(\.peer.name).joined(separator: ", "))"
                        + (changed.count < chosen.count ? " (\(chosen.count - changed.count) already so)." : "."))
        }
    }

    // MARK: Helpers

    /// A channel failure said with the device it was with: "the peer announced a frame of 65535
    /// bytes" alone did not say which device broke the channel (F17-8).
    static func naming(_ error: Error, _ peer: DeviceProfile) -> Error {
        guard let channel = error as? PeerChannelError, !channel.message.hasPrefix(peer.name) else { return error }
        return PeerChannelError(channel.code, "sync with \(peer.name) failed: \(channel.message)")
    }

    private static func sync(with pairing: FamilyPairing, _ unlocked: UnlockedVault, _ arguments: ParsedArguments,
                             announced: [DeviceID: SocketAddress]?) throws -> SyncRunReport {
        // In the daemon, where a sync last reached the device, then where its listener heard the
        // device announce (F3: a forged announcement is only tried after the proven address);
        // else --address, or listen now.
        let known = arguments.value("--address") == nil ? HeardAddresses.shared.candidates(of: pairing.peer.deviceID) : []
        let addresses = try known.isEmpty
            ? [announced.map { try PeerChannelCommands.announcedAddress(of: pairing.peer, in: $0, arguments) }
                ?? PeerChannelCommands.peerAddress(pairing.peer, given: arguments.value("--address"), arguments)]
            : known
        let (client, address) = try SyncInitiator.reaching(pairing.peer.deviceID, in: unlocked) {
            try HeardAddresses.connect(to: pairing.peer, at: addresses, localKeys: unlocked.deviceKeys())
        }
        let report = try SyncInitiator(vault: unlocked, transport: ChannelSyncTransport(client)).run()
        // In the daemon, its syncs after a save go there too (BackgroundSync.saved).
        HeardAddresses.shared.reached(pairing.peer.deviceID, at: address)
        return report
    }

    private static func printReport(_ report: SyncRunReport, peer: DeviceProfile, mine: Bool, conflicts: [String]) {
        for line in reportLines(report, peer: peer.name, mine: mine, conflicts: conflicts) { Output.line(line) }
    }

    /// What `sync now` prints of one run with the device named `peer`, one of the owner's own (`mine`) or not;
    /// `conflicts`, a line for each conflict the run kept as a branch (`ConflictSidesText.madeLines`).
    static func reportLines(_ report: SyncRunReport, peer: String, mine: Bool, conflicts: [String] = []) -> [String] {
        let skipped = report.projects.filter { $0.localOnly != nil }
        // A project this vault would not sync with the device (its offer refused, or no access): named with the reason.
        // A local-only one is said once, with its own reason, below (session 12: its offer left unread
        // was said refused with no reason, and counted twice, so "Synced 0" though another synced).
        let refused = report.projects.filter { $0.access == "none" && $0.localOnly == nil }
        let shredded = report.projects.filter { $0.shreddedThere != nil }
        var lines = ["Synced \(report.projects.count - skipped.count - refused.count - shredded.count) project(s) with \(peer): sent \(report.sent) record(s), received \(report.received)"
                     + (report.refused > 0 ? ", \(report.refused) refused" : "") + "."]
        // One left for the run (a project its owner no longer shares, this device's words in it) is said by its own line below.
        for project in refused where !project.declined && project.skipped == nil {
            let why = project.refused.isEmpty ? "no access" : project.refused.joined(separator: ", ")
            lines.append("Refused project \(project.project.hex): \(why) (recorded in the audit log as sync.exchange-refused)")
        }
        for project in refused where project.declined {
            lines.append("Declined project \(project.project.hex) offered by \(peer): \(declinedText(project.refused, of: project.project, by: peer, mine: mine)) (your choice: not a failure)")
        }
        for project in shredded {
            lines.append("Project \(project.project.hex) was destroyed on \(peer) (its compartment shredded there): it syncs no more with \(peer). "
                         + shreddedRemedy(project.shreddedThere ?? "project \(project.project.hex)") + " (your choice: not a failure)")
        }
        for project in skipped {
            lines.append("Skipped project \(project.project.hex), local-only: \(project.localOnly ?? "")")
        }
        // Only a project whose records here are damaged is rebuilt by `repair --from`: one whose
        // exchange rows are damaged says its own remedy ('vaultctl repair'), and no repair changes
        // what the writing store refuses (F8's hint).
        let rebuilt = skipped.filter { $0.access != "none" && !$0.refused.contains(SyncErrorCode.writingRefused.rawValue) }
        if !rebuilt.isEmpty {
            lines.append("'vaultctl repair --from DEVICE' rebuilds \(rebuilt.map { "project \($0.project.hex)" }.joined(separator: ", ")) here "
                         + "from one of your own devices.")
        }
        for project in report.projects where project.skipped != nil {
            lines.append("Left project \(project.project.hex) for this run: \(project.skipped ?? "")")
        }
        for project in report.projects { if let aside = project.setAside { lines.append(setAsideText(aside, of: project.project)) } }
        let branches = report.projects.reduce(0) { $0 + $1.branchesMade }
        if branches > 0 { lines.append("\(branches) conflict(s) kept as branches: see 'vaultctl conflicts'.") }
        lines += conflicts
        lines += report.notes.map { "Note: \($0)." }
        return lines
    }

    private static func json(_ report: SyncRunReport, peer: DeviceProfile) -> [String: Any] {
        ["peer": DeviceCommand.json(peer), "sent": report.sent, "received": report.received, "refused": report.refused,
         "notes": report.notes, "projects": report.projects.map { project in
             ["project": project.project.hex, "access": project.access, "sent": project.sent, "received": project.received,
              "refused": project.refused, "refused_by_peer": project.refusedByPeer, "documents_written": project.documentsWritten,
              "branches_made": project.branchesMade, "records_refused": project.recordsRefused,
              "records_refused_by_peer": project.recordsRefusedByPeer, "synced": !project.notSynced, "declined": project.declined,
              "shredded_there": project.shreddedThere != nil,
              "forked": project.forked.keys.map(\.hex).sorted(), "set_aside": json(project.setAside),
              "local_only": project.localOnly as Any? ?? NSNull(),
              "skipped": project.skipped as Any? ?? NSNull(), "damaged": project.damaged as Any? ?? NSNull()] as [String: Any]
         }]
    }

    /// " (privileged)" for a privileged project; for a damaged one whose compartment nothing here
    /// says, that it is treated as privileged, the safe default, and why (V-7).
    private static func privilegeLabel(_ project: SyncProjectStatus) -> String {
        if project.privilegeUnknown { return " (treated as privileged: its compartment is unknown)" }
        return project.privileged ? " (privileged)" : ""
    }

    private static func printProjects(_ projects: [SyncProjectStatus], offersRefused: [SyncProjectRefusal], own: Set<DeviceID>,
                                      origins: [ProjectID: SharedProjectOrigin], awaited: [ProjectID: [String]]) {
        for project in projects {
            let name = "project \(project.project.hex)\(Self.privilegeLabel(project))"
            switch project.state {
            case .ready(let records) where project.syncs && !project.shreddedOn.isEmpty:
                Output.line("\(name): shredded on device \(project.shreddedOn.map(\.peer.fingerprint).sorted().joined(separator: ", ")), \(records) record(s) here")
            case .ready(let records) where project.syncs:
                Output.line("\(name): syncs, \(records) record(s)")
            case .ready(let records):
                let devices = Set(project.skipped.map(\.peer) + project.refused.map(\.peer)).map(\.fingerprint).sorted()
                let with = devices.isEmpty ? "" : " with \(devices.joined(separator: ", "))"
                Output.line("\(name): NOT IN SYNC\(with), \(records) record(s) here")
            case .localOnly(let reason):
                Output.line("\(name): LOCAL-ONLY: \(reason)")
            }
            for skip in project.skipped {
                Output.line("  left in the last sync with device \(skip.peer.fingerprint) (\(Output.timestamp(skip.at))): \(skip.reason)")
            }
            for refusal in project.refused { Output.line("  " + refusalText(refusal)) }
            for refusal in project.declined { Output.line("  " + declinedOfferText(refusal, mine: own.contains(refusal.peer))) }
            for refusal in project.shreddedOn { Output.line("  " + shreddedText(refusal, compartment: project.compartment)) }
            for fork in project.forks { Output.line("  " + forkText(fork)) }
            for item in project.leftOut { Output.line("  " + leftOutText(item, origins: origins)) }
            if let aside = project.setAside { Output.line("  " + setAsideText(aside, of: nil)) }
            if let devices = awaited[project.project] { Output.line("  " + restoreWaitText(devices, of: project.project)) }
        }
        for refusal in offersRefused {
            let declined = refusal.declined(byOwnersChoiceAmong: own)
            Output.line("project \(refusal.project.hex), not held here: " + (declined ? declinedOfferText(refusal, mine: own.contains(refusal.peer)) : refusalText(refusal)))
        }
    }

    /// What mends a project `sync now` met damaged, named (review 17 s9 on 8934d66, F8's hint): on
    /// the device where it does not open, `repair --from` one of the owner's own devices that holds
    /// it whole, the other one of this run when it is the owner's own.
    private static func repairRemedy(_ project: SyncRunReport.Project, peer: DeviceProfile, _ unlocked: UnlockedVault) throws -> String {
        let name = "project \(project.project.hex)"
        let peerIsMine = try unlocked.vault.trust(of: peer.deviceID) == .mine
        let me = try unlocked.deviceKeys().profile
        if project.skipped?.hasPrefix("peer-") == true {
            return peerIsMine
                ? "on \(peer.name), 'vaultctl repair --from \(me.fingerprint)' rebuilds \(name) there from this device"
                : "on \(peer.name), someone else's device, its owner's 'vaultctl repair --from DEVICE' rebuilds \(name) from one of their own devices"
        }
        return peerIsMine
            ? "on this device, 'vaultctl repair --from \(peer.fingerprint)' rebuilds \(name) from \(peer.name)"
            : "on this device, 'vaultctl repair --from DEVICE' rebuilds \(name) from one of your own devices (not \(peer.name), someone else's)"
    }

    /// Why an offer of `device` (one of the owner's own: `mine`) was declined by the owner's standing
    /// choice (`SyncProjectRefusal.declines`), and what would change it: a project destroyed here is
    /// destroyed on an own device too, with the command there; on someone else's device only its
    /// owner can stop the offer (review 17 s14, N-s14-4: the line told the owner to destroy it on the
    /// colleague's device, which the owner cannot do).
    private static func declinedText(_ codes: [String], of project: ProjectID, by device: String, mine: Bool) -> String {
        codes.map { code in
            switch SyncExchangeErrorCode(rawValue: code) {
            case .notShared: "\(code): not shared with that device ('vaultctl share' shares it)"
            case .privilegedRefused: "\(code): a privileged project syncs only with your own devices"
            case .notOwner: "\(code): someone else's project, which only its owner shares"
            case .offerRefused: "\(code): a project that device never shared with this vault"
            case .projectDestroyed where mine: "\(code): you destroyed it here, and device \(device) still holds it; to stop its offer, destroy it "
                + "on \(device) too: 'vaultctl compartment destroy \"project \(project.hex)\" --yes' there"
            case .projectDestroyed: "\(code): you destroyed it here; device \(device) is someone else's, so only that device's owner can stop "
                + "its offer, there (by no longer sharing the project with you, or by destroying their copy); nothing to do here: "
                + "it is declined at every sync and never made again here"
            default: code
            }
        }.joined(separator: "; ")
    }

    /// What the owner does about a project another own device destroyed, which this vault holds in `compartment`.
    private static func shreddedRemedy(_ compartment: String) -> String {
        "To have it gone here too: 'vaultctl compartment destroy \"\(compartment)\" --yes'; to keep it here, nothing to do"
    }

    /// An own device that destroyed the project held here, as `sync status` says it (N-s14-5).
    private static func shreddedText(_ refusal: SyncProjectRefusal, compartment: String) -> String {
        "destroyed on device \(refusal.peer.fingerprint) (its compartment shredded there; said since \(Output.timestamp(refusal.since))): "
            + "it syncs no more with that device. " + shreddedRemedy(compartment) + " (your choice: not out of sync)"
    }

    /// An offer declined by the owner's standing choice, as `sync status` says it.
    private static func declinedOfferText(_ refusal: SyncProjectRefusal, mine: Bool) -> String {
        "its offer by device \(refusal.peer.fingerprint) declined here since \(Output.timestamp(refusal.since)): "
            + declinedText(refusal.reasons, of: refusal.project, by: refusal.peer.fingerprint, mine: mine) + " (your choice: not out of sync)"
    }

    /// One way a project's records are refused with a device, as `sync status` says it.
    private static func refusalText(_ refusal: SyncProjectRefusal) -> String {
        let since = "since \(Output.timestamp(refusal.since)), last \(Output.timestamp(refusal.lastAt))"
        let why = refusal.reasons.joined(separator: ", ")
        switch refusal.side {
        case .here where refusal.records == 0:
            return "its offer by device \(refusal.peer.fingerprint) refused here \(since): \(why)"
        case .here:
            return "records of device \(refusal.peer.fingerprint) refused here \(since): \(refusal.records) in the last sync (\(why))"
        case .peer:
            return "records of this vault refused by device \(refusal.peer.fingerprint) \(since): \(refusal.records) in the last sync (\(why))"
        }
    }

    /// A device found signing two histories of a project, as `sync status` says it, with what became
    /// of the words (review 17 s10, N-s10-1 (a)): the fork rule keeps the same history on every device.
    private static func forkText(_ fork: SyncProjectFork) -> String {
        "device \(fork.device.fingerprint) signed two histories of this project (found \(Output.timestamp(fork.foundAt))): "
            + "every device of yours keeps the same one (the fork rule: a copy one of your devices wrote on stays), so your devices "
            + "come to show the same text once they have synced; someone else's device may keep the other: its records built on it "
            + "are then refused here, and the project does not sync with it. "
            + "Words only the other history showed, yours written on it included, are kept as a sync-conflict branch of the "
            + "document on each device that showed them: 'vaultctl conflicts' lists it, 'vaultctl branch adopt' takes it back"
    }

    /// This device's edits its project's origin refused after making it a viewer, set aside here
    /// (SECURITY.md §19.5): what happened, where the words are, and what to do. `project`: named
    /// for `sync now` (nil under `sync status`'s project line).
    private static func setAsideText(_ aside: VaultSync.SetAside, of project: ProjectID?) -> String {
        let name = project.map { "Project \($0.hex): " } ?? ""
        let conflicts = project.map { "'vaultctl conflicts \($0.hex)'" } ?? "'vaultctl conflicts'"
        let what = if let writer = aside.writer {
            "device \(writer.fingerprint), your own, holds \(aside.records) record(s) of your edits set aside, which device "
                + "\(aside.refusedBy.fingerprint), the project's owner, refused after making it a viewer; this device took them before, and now "
                + "sets them aside too: it shows the owner's version, and your words are kept in \(aside.branchesMade) branch(es) of kind "
                + "sync-conflict (\(conflicts))."
        } else if aside.now {
            "device \(aside.refusedBy.fingerprint), the project's owner, made this device a viewer and refused \(aside.records) record(s) of "
                + "your edits made before; they are set aside here, nothing is lost: this device now shows the owner's version, and your words "
                + "are kept in \(aside.branchesMade) branch(es) of kind sync-conflict (\(conflicts))."
        } else {
            "\(aside.records) record(s) of your edits are set aside here since \(Output.timestamp(aside.since)): device "
                + "\(aside.refusedBy.fingerprint), the project's owner, refused them after making this device a viewer; this device shows "
                + "the owner's version, and your words are kept in branches of kind sync-conflict (\(conflicts))."
        }
        return name + what + " To send them: ask the project's owner for editor rights, then run 'vaultctl sync now' (they go as they were signed)."
    }

    /// A restored project's wait (SECURITY.md §19.10): the devices still awaited, and the ways out.
    private static func restoreWaitText(_ devices: [String], of project: ProjectID) -> String {
        // Every device it waited for was revoked or stopped sharing it since the last settle: the next one ends the wait.
        guard !devices.isEmpty else {
            return "VIEW-ONLY since the restore: no device it waited for is still awaited (each revoked or no longer sharing it); "
                + "the next 'vaultctl sync now' or change ends the wait"
        }
        return "VIEW-ONLY since the restore until this device's records of it made after the backup are back from each device that may hold them; "
            + "still to sync with: " + devices.joined(separator: "; ") + ". If none of them holds them: 'vaultctl repair --write-anyway \(project.hex)'"
    }

    /// A project that did not wholly sync in a run with `peer`, for `sync now`'s exit (75).
    private static func notSyncedText(_ project: SyncRunReport.Project, peer: DeviceProfile) -> String {
        var why: [String] = []
        for device in project.forked.keys.sorted(by: { $0.bytes.lexicographicallyPrecedes($1.bytes) }) {
            why.append("device \(device.fingerprint) signed two histories of it (a fork, from its record \(project.forked[device] ?? 0))")
        }
        if let skipped = project.skipped { why.append("left for the run: \(skipped)") }
        if let localOnly = project.localOnly { why.append("local-only: \(localOnly)") }
        if project.access == "none" {
            // A project left for the run with no offer refused (one its owner no longer shares) was refused nothing here.
            if project.skipped == nil || !project.refused.isEmpty { why.append("refused here: \(project.refused.joined(separator: ", "))") }
        } else if !project.refusedAndNotHeld.isEmpty {
            why.append("\(project.recordsRefused) of its record(s) refused here (\(Set(project.refusedAndNotHeld).sorted().joined(separator: ", ")))")
        }
        if !project.refusedByPeerAndNotHeld.isEmpty {
            why.append("\(project.recordsRefusedByPeer) of its record(s) refused by \(peer.name) (\(Set(project.refusedByPeerAndNotHeld).sorted().joined(separator: ", ")))")
        }
        return "project \(project.project.hex) with \(peer.name): " + why.joined(separator: "; ")
    }

    private static func json(_ aside: VaultSync.SetAside?) -> Any {
        guard let aside else { return NSNull() }
        return ["records": aside.records, "refused_by": aside.refusedBy.hex, "since": Output.timestamp(aside.since), "now": aside.now,
                "branches_made": aside.branchesMade] as [String: Any]
    }

    private static func json(_ project: SyncProjectStatus) -> [String: Any] {
        let skipped = project.skipped.map { ["device": $0.peer.hex, "reason": $0.reason, "at": Output.timestamp($0.at)] }
        let refused = project.refused.map(json)
        let leftOut = project.leftOut.map { ["kind": $0.kind, "count": $0.count, "held_by": $0.heldBy.hex] as [String: Any] }
        let forks = project.forks.map { ["device": $0.device.hex, "found_at": Output.timestamp($0.foundAt)] as [String: Any] }
        switch project.state {
        case .ready(let records):
            return ["project": project.project.hex, "privileged": project.privileged, "state": "ready", "records": records, "reason": NSNull(),
                    "syncs": project.syncs, "skipped": skipped, "refused": refused, "declined": project.declined.map(json), "left_out": leftOut,
                    "forks": forks, "set_aside": json(project.setAside), "shredded_on": project.shreddedOn.map(json)]
        case .localOnly(let reason):
            return ["project": project.project.hex, "privileged": project.privileged, "state": "local-only", "records": NSNull(), "reason": reason,
                    "syncs": project.syncs, "skipped": skipped, "refused": refused, "declined": project.declined.map(json), "left_out": leftOut,
                    "forks": forks, "set_aside": json(project.setAside), "shredded_on": project.shreddedOn.map(json)]
        }
    }

    /// Items of a project the store leaves out here because another project keeps their ids (SECURITY.md §19.5).
    private static func leftOutText(_ item: SyncLeftOut, origins: [ProjectID: SharedProjectOrigin]) -> String {
        let one = item.count == 1
        let noun = switch item.kind {
        case "node": one ? "document or folder" : "documents or folders"
        case "block": one ? "paragraph" : "paragraphs"
        default: one ? "entry" : "entries"
        }
        let whose = origins[item.heldBy]?.label ?? "your own project"
        return "\(item.count) \(noun) of this project \(one ? "is" : "are") not shown here: \(one ? "its id is" : "their ids are") "
            + "also held by project \(item.heldBy.hex) (\(whose)), which keeps \(one ? "it" : "them")"
    }

    private static func json(_ refusal: SyncProjectRefusal) -> [String: Any] {
        ["project": refusal.project.hex, "device": refusal.peer.hex, "side": refusal.side.rawValue, "records": refusal.records,
         "reasons": refusal.reasons, "since": Output.timestamp(refusal.since), "last_at": Output.timestamp(refusal.lastAt)]
    }

    private static func json(_ peer: SyncPeerStatus) -> [String: Any] {
        ["device": peer.device.hex, "name": peer.name, "trust": peer.trust ?? "other", "paused": peer.paused,
         "last_sync_at": peer.lastSyncAt.map { Output.timestamp($0) as Any } ?? NSNull(),
         "last_attempt_at": peer.lastAttemptAt.map { Output.timestamp($0) as Any } ?? NSNull(),
         "last_error": peer.lastError as Any? ?? NSNull(), "records_sent": peer.recordsSent, "records_received": peer.recordsReceived,
         "pending": peer.pending, "projects_not_in_sync": peer.notInSync.map(\.hex), "damaged": peer.damaged ?? NSNull()]
    }
}
