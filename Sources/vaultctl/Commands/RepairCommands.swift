import Appliance
import CryptoVault
import Foundation
import PeerChannel
import Sync
import Writing

/// `vaultctl repair --from DEVICE` (issue 17, SECURITY.md §19.10): this vault's writing store
/// rebuilt from one of the owner's own paired devices, the damaged one kept aside.
enum RepairCommands {
    static let repair = Command("repair", synopsis: "mend sync state; rebuild this vault's writing store from one of your own devices",
                                usage: "[--from PEER [--address ADDR:PORT] [--discard-local] | --write-anyway PROJECT | --write-anyway-all]", about: """
        Without --from: mends the sync exchange's own tables when they are damaged ('vaultctl sync
        status' says so; sync with every device is off until then): each is made again and its whole
        rows kept; a damaged row is dropped (a share, an origin or a roster key it held is lost on the
        safe side: share again, or 'repair --from' a project left local-only), except a device's row,
        which comes back paused ('vaultctl sync resume'). It also mends a project's stored change
        records whose clear columns hold a value no writer stores (a flipped bit; the project works
        local-only until then, and every command names it): each such row is written again from
        the sealed record it names, or dropped when that record does not open (a sync with your own
        device brings it again). Says what it dropped; recorded in the audit log. A writing store
        that cannot be opened (in-memory mode) is not mended so: it is refused (exit 65), and
        --from rebuilds it.

        With --from:
        Rebuilds the writing store (projects, documents and the sync records they are made of) from
        PEER, a paired device trusted as your own ('mine'; refused for someone else's), over the
        encrypted channel where 'vaultctl serve --address' answers. Every record PEER holds is pulled
        and verified first (its signature by a key of your devices, its causality) and checked
        against this vault's audit log wherever the log recorded it; if any fails, nothing changes.
        A project here that PEER does not offer (made here and never synced, or shared with this
        device only) is kept as it is here; when its own rows are damaged it goes with the rest, its
        documents named first as below, and its words are then only in the kept copy.
        Then the vault's database files are kept aside as they are, in VAULT/damaged/TIME-PID/
        (read-only, opened by vaultctl only with 'audit verify --read-only'; 'compartment destroy'
        and 'passwd' are refused while it is there, until their --remove-kept-copies removes it),
        and in one audited transaction the store is emptied, made
        again and filled from the records. Works whether or not the store could be opened. Versions
        (snapshots, branches and their decisions, edit events), entries and the project's name are
        rebuilt with the documents: the records carry them. Edits PEER never received stay in the
        kept copy. Refused while 'vaultctl serve' serves this vault (stop it first), and no serve
        starts while a repair runs.

        Before anything changes, the documents here are compared with what PEER's records make of
        them: a document whose words here PEER does not hold (written here and never synced, or
        changed since) is named, and the repair is refused (exit 1) unless --discard-local is given;
        with it, they are replaced and named again, and their words here are only in the kept copy,
        where 'vaultctl doc show PROJECT DOC --vault VAULT/damaged/NAME --read-only' reads them.

        A project whose records made on THIS device PEER lacks (this vault's audit log recorded
        more of them) stays view-only here until they come back: 'vaultctl sync now --peer DEVICE'
        with your own device that holds them brings them. A change before would be signed under
        one of their numbers with other words, and that device would refuse this one's records of
        the project for good. So does every project of a vault restored by
        'vaultctl restore-backup' or 'vaultctl recover', until it has synced with one of your own
        devices. --write-anyway PROJECT (its id or name) stops waiting, recorded, when none of your
        devices holds them; --write-anyway-all does so for every project that waits (a vault on
        your only device, restored from its backup). A privileged project (a chart) is released only
        in a session: give --purpose TEXT, or the ones left are named with what they need.
        """, options: ReplicationCommands.peerOptions + [Option("--peer", value: "PEER", "your own paired device to rebuild from (name or fingerprint)", aliases: ["--from"]),
                     Option("--discard-local", "with --from: replace the documents here whose words PEER does not hold (they stay in the kept copy); without it the repair is refused, naming them"),
                     Option("--write-anyway", value: "PROJECT", "let PROJECT take changes again though this device's own records of it a repair lacked are not back"),
                     Option("--write-anyway-all", "as --write-anyway, for every project that waits here"),
                     WritingContext.purposeOption],
        json: true, examples: ["vaultctl repair", "vaultctl repair --from desk --address 192.168.1.20:\(ChannelServer.defaultPort)"]) { arguments in
            if let project = arguments.value("--write-anyway") { return try writeAnyway(project, arguments) }
            if arguments.has("--write-anyway-all") { return try writeAnywayAll(arguments) }
            guard let from = arguments.value("--peer") else { return try mendExchange(arguments) }
            InMemoryMode.bypass()
            // Before the vault is opened: a refused repair leaves it exactly as it was.
            let lock = try holdingTheVault(arguments)
            defer { withExtendedLifetime(lock) {} }
            let unlocked = try VaultLocation.unlock(arguments)
            // The exchange's own tables first: the rebuild reads and writes its rosters.
            let mend = try SyncExchangeHealth.mend(unlocked)
            let pairing = try PeerSelection.pairing(from, in: try unlocked.vault.familyPairings())
            let address = try PeerChannelCommands.peerAddress(pairing.peer, given: arguments.value("--address"), arguments)
            let client = try ChannelClient(connectingTo: address, localKeys: unlocked.deviceKeys(), peer: pairing.peer)
            let report = try StoreRepair(vault: unlocked, transport: ChannelSyncTransport(client), discardingLocal: arguments.has("--discard-local")).run()
            let kept = (unlocked.vault.directory as NSString).appendingPathComponent("damaged/" + report.kept)
            if arguments.has("--json") {
                Output.json(["peer": DeviceCommand.json(pairing.peer), "kept": kept, "kept_bytes": report.keptBytes,
                             "origins_not_restored": mend.originsNotRestored ?? NSNull(),
                             "records": report.records, "checked": report.checked, "missing": report.missing,
                             "projects": report.projects.map { ["project": $0.project.hex, "records": $0.records, "documents": $0.documents] as [String: Any] },
                             "kept_here": report.keptHere.map(\.hex),
                             "not_offered": report.notOffered.map(\.hex), "not_here": report.notHere.map(\.hex),
                             "destroyed_here": report.destroyedHere.map(\.hex),
                             "not_offered_damage": Dictionary(uniqueKeysWithValues: report.notOfferedDamage.map { ($0.key.hex, $0.value) }),
                             "origins_refused": report.originsRefused.map(\.hex),
                             "replaced_here": report.replacedHere.map(json),
                             "unreadable_here": report.unreadableHere.map { ["project": $0.project.hex, "damage": $0.damage, "blocks": $0.blocks] as [String: Any] },
                             "awaiting": report.awaiting.sorted { $0.key.hex < $1.key.hex }.map { ["project": $0.key.hex, "counter": $0.value] as [String: Any] }])
                return
            }
            Output.line("Rebuilt \(report.projects.count) project(s) from \(pairing.peer.name): \(report.records) record(s), "
                        + "\(report.checked) checked against this vault's audit log.")
            Output.line("The damaged store is kept in \(kept)")
            if !report.replacedHere.isEmpty {
                Output.line("Replaced \(report.replacedHere.count) document(s) here whose words \(pairing.peer.name) does not hold "
                            + "(--discard-local): \(report.replacedHere.map(\.named).joined(separator: "; ")). Their words here are only in the kept copy: "
                            + "'vaultctl doc show PROJECT DOC --vault \(kept) --read-only' reads them.")
            }
            if let why = mend.originsNotRestored { Output.line("The sync state was mended first: \(why).") }
            if report.missing > 0 { Output.line("\(report.missing) record(s) this vault held are not on \(pairing.peer.name): they are only in the kept copy.") }
            for (id, counter) in report.awaiting.sorted(by: { $0.key.hex < $1.key.hex }) {
                Output.line("Project \(id.hex) is view-only here until this device's own records of it (up to number \(counter)) come back: "
                            + "\(pairing.peer.name) lacks some. 'vaultctl sync now --peer DEVICE' with your own device that holds them brings them; "
                            + "a change before would reuse their numbers, and your devices would refuse this one's records of it for good.")
            }
            for id in report.keptHere { Output.line("Project \(id.hex) is not on \(pairing.peer.name): it is kept as it is here.") }
            for lost in report.unreadableHere {
                Output.line("Project \(lost.project.hex) is not on \(pairing.peer.name) and its documents did not read here (\(lost.damage)): "
                            + "its \(lost.blocks) sealed record(s) of words are only in the kept copy, where no command reads them as documents (--discard-local).")
            }
            for id in report.notOffered where !report.unreadableHere.contains(where: { $0.project == id }) {
                Output.line("Project \(id.hex) is not on \(pairing.peer.name) and its rows here are damaged (\(report.notOfferedDamage[id] ?? "unread")): "
                            + "it is only in the kept copy, where 'vaultctl doc list \(id.hex) --vault \(kept) --read-only' lists its documents "
                            + "and 'vaultctl doc show' with --read-only reads them.")
            }
            for id in report.originsRefused {
                Output.line("Project \(id.hex) was made on this device, not from \(pairing.peer.name)'s offer: it stays your own here, whoever \(pairing.peer.name) says it is from (recorded).")
            }
            if !report.notHere.isEmpty { Output.line("\(report.notHere.count) project(s) on \(pairing.peer.name) were never here: 'vaultctl sync now' brings them.") }
            for id in report.destroyedHere {
                Output.line("Project \(id.hex) was destroyed here: not made again from \(pairing.peer.name), which still holds it "
                            + "('vaultctl compartment destroy \"project \(id.hex)\" --yes' there destroys it too).")
            }
        }

    /// `vaultctl repair` without --from: the exchange's tables mended (SECURITY.md §19.9), under the
    /// daemon's lock like any repair.
    static func mendExchange(_ arguments: ParsedArguments) throws {
        // Mending reads the writing store (its rows, links, projects): one that cannot be opened is
        // rebuilt, not mended (reviewer 20, F20-3: a raw SQL error and exit 1, before).
        if let reason = InMemoryMode.reason(forVault: VaultLocation.realDirectory(arguments)) {
            throw CommandError(message: "'vaultctl repair' without --from cannot mend this vault: \(reason)", exitCode: .dataError,
                               hint: "'vaultctl repair --from DEVICE' rebuilds the writing store from one of your own devices")
        }
        InMemoryMode.bypass()
        let lock = try holdingTheVault(arguments)
        defer { withExtendedLifetime(lock) {} }
        let unlocked = try VaultLocation.unlock(arguments)
        // The core's rows first (R15-7, R15-9, R15-10): a project row is judged against its compartment.
        let keyVersions = try SealedRecordKeyVersionMend.mend(unlocked)
        let compartmentKeys = try CompartmentKeyVersionMend.mend(unlocked)
        let compartmentRows = try CompartmentRowMend.mend(unlocked, candidateIDs: try unlocked.transaction { tx in
            try WritingStore(tx).damagedProjects().compactMap(\.compartmentID)
        })
        let projectRows = try ProjectRowMend.mend(unlocked)
        let writingRows = try WritingRowMend.mend(unlocked)
        let links = try LinkMend.mend(unlocked)
        let mend = try SyncExchangeHealth.mend(unlocked)
        let records = try VaultSync.DamagedRecords.mend(unlocked)
        let rows = try VaultSync.DamagedRows.mend(unlocked)
        let dropped = mend.dropped.sorted { $0.key < $1.key }
        if arguments.has("--json") {
            let coreMended: Bool = !keyVersions.isEmpty || !compartmentRows.isEmpty || compartmentKeys.contains { $0.mended }
            let keyRows: [[String: Any]] = compartmentKeys.map { ["compartment": $0.compartment.hex, "version": Int($0.version), "mended": $0.mended] }
            let writingMended: Bool = projectRows.contains { $0.notMended == nil } || writingRows.contains { $0.notMended == nil }
                || links.contains { $0.notMended == nil }
            let mended: Bool = mend.changed || records.changed || rows.changed || writingMended || coreMended
            let writingRowsJSON: [[String: Any]] = writingRows.map(json)
            let linksJSON: [[String: Any]] = links.map(json)
            Output.json(["mended": mended,
                         "writing_rows": writingRowsJSON,
                         "links": linksJSON,
                         "compartment_key_versions": keyRows,
                         "sealed_records_mended": keyVersions,
                         "compartment_rows_mended": compartmentRows.map { ["compartment": $0.compartment.hex, "columns": $0.columns] as [String: Any] },
                         "remade": mend.remade,
                         "project_rows": projectRows.map { outcome in
                             ["project": outcome.project?.hex ?? NSNull(), "mended": outcome.mended, "not_mended": outcome.notMended ?? NSNull()] as [String: Any]
                         },
                         "dropped": Dictionary(uniqueKeysWithValues: dropped.map { ($0.key, $0.value) }),
                         "origins_restored": mend.originsRestored.map(\.hex),
                         "origins_not_restored": mend.originsNotRestored ?? NSNull(),
                         "records_mended": Dictionary(uniqueKeysWithValues: records.mended.map { ($0.key.hex, $0.value) }),
                         "records_dropped": Dictionary(uniqueKeysWithValues: records.dropped.map { ($0.key.hex, $0.value) }),
                         "records_unowned": records.unowned,
                         "rows_mended": rows.mended, "rows_dropped": rows.dropped, "waiting": (rows.waiting + rows.rewaiting.filter { !rows.waiting.contains($0) }).map(\.hex)])
            return
        }
        for location in keyVersions { Output.line("Mended the key_version of sealed record \(location) from its sealed header.") }
        for key in compartmentKeys {
            Output.line(key.mended
                ? "Mended the key version row of compartment \(key.compartment.hex) in compartment_keys: it is version \(key.version) again (its salt opens the records sealed under it)."
                : "Could not mend compartment \(key.compartment.hex): its records are sealed under key version \(key.version), which no row of "
                    + "compartment_keys opens here (a privileged compartment's is not tried outside a session); its projects stay damaged until "
                    + "'vaultctl repair --from DEVICE' rebuilds them from your own device, or a backup is restored.")
        }
        for row in compartmentRows {
            Output.line("Mended the row of compartment \(row.compartment.hex) in compartments (\(row.columns.joined(separator: ", "))) from its binding.")
        }
        say(projectRows)
        say(writingRows)
        say(links)
        say(records)
        say(rows)
        guard mend.changed else {
            if records.changed || rows.changed || records.unowned > 0 || !projectRows.isEmpty || !writingRows.isEmpty || !links.isEmpty
                || !keyVersions.isEmpty || !compartmentRows.isEmpty || !compartmentKeys.isEmpty { return }
            Output.line("The sync state is whole: nothing to mend. ('vaultctl repair --from PEER' rebuilds the writing store from your own device.)")
            return
        }
        for table in mend.remade { Output.line("Made \(table) again (it was missing or had other columns): its rows are gone.") }
        for (table, count) in dropped { Output.line("Dropped \(count) damaged row(s) of \(table).") }
        for project in mend.originsRestored {
            Output.line("Project \(project.hex) is held from someone else's device again, as this vault's audit log says (its origin row was lost).")
        }
        if let why = mend.originsNotRestored { Output.line("Not put back: \(why).") }
        if mend.dropped["sync_peers"] != nil { Output.line("A device whose row was damaged is paused: 'vaultctl sync resume --peer PEER' resumes it.") }
        Output.line("Sync state mended; 'vaultctl sync status' shows it.")
    }

    /// What mending damaged rows of `writing_projects` did (review 17 s14, N-s14-8, N-s14-9).
    static func say(_ projectRows: [ProjectRowMend.Outcome]) {
        for outcome in projectRows {
            let project = outcome.project?.hex ?? "(its id damaged)"
            if let why = outcome.notMended {
                Output.line("Could not mend the row of project \(project) in writing_projects: \(why). It stays out of every listing and of sync.")
            } else {
                Output.line("Mended the row of project \(project) in writing_projects (\(outcome.mended.joined(separator: ", "))) "
                            + "from this vault's audit log and the project's compartment; 'vaultctl project list' shows it again.")
            }
        }
    }

    /// What putting back rows that linked elsewhere did (reviewer15's R15-2, R15-3, R15-5, R15-6).
    static func say(_ links: [LinkMend.Outcome]) {
        for outcome in links {
            let row = "\(outcome.link.table.rawValue) row \(DamagedLink.hex(outcome.link.id)) of project \(outcome.link.owner.hex)"
            if let why = outcome.notMended {
                Output.line("Could not put back \(row): \(why). The project stays unread until it is mended "
                            + "('vaultctl repair --from DEVICE' rebuilds the store from your own device).")
            } else {
                Output.line("Put back \(row): its \(outcome.link.column) is \(DamagedLink.hex(outcome.mendedTo ?? [])) again, "
                            + "as its sealed record says (recorded).")
            }
        }
    }

    static func json(_ outcome: LinkMend.Outcome) -> [String: Any] {
        ["project": outcome.link.owner.hex, "table": outcome.link.table.rawValue, "row": DamagedLink.hex(outcome.link.id),
         "column": outcome.link.column, "mended_to": outcome.mendedTo.map(DamagedLink.hex) ?? NSNull(),
         "not_mended": outcome.notMended ?? NSNull()]
    }

    /// What mending the damaged rows of stored change records did (review 17 s9, N-s9-6).
    static func say(_ records: SyncRecordsMend) {
        for (project, count) in records.mended.sorted(by: { $0.key.hex < $1.key.hex }) {
            Output.line("Mended \(count) damaged row(s) of \(VaultSync.DamagedRecords.table) of project \(project.hex) from the records they name.")
        }
        for (project, count) in records.dropped.sorted(by: { $0.key.hex < $1.key.hex }) {
            Output.line("Dropped \(count) row(s) of \(VaultSync.DamagedRecords.table) of project \(project.hex) whose record does not open: "
                        + "'vaultctl sync now --peer DEVICE' with your own device brings it again; if 'vaultctl sync status' still shows "
                        + "the project local-only, 'vaultctl repair --from DEVICE' rebuilds it.")
        }
        if records.unowned > 0 {
            Output.line("Kept \(records.unowned) row(s) of \(VaultSync.DamagedRecords.table) that name no project here and whose record does not say "
                        + "whose they are (dropping one would let its counter be signed again): every project stays local-only until "
                        + "'vaultctl repair --from DEVICE' rebuilds the store from your own device.")
        }
        if records.changed { Output.line("Stored change records mended; 'vaultctl sync status' shows whether each project syncs.") }
    }

    /// What mending damaged rows of the other writing tables did (reviewer15's R15-1, R15-4).
    static func say(_ writingRows: [WritingRowMend.Outcome]) {
        for outcome in writingRows {
            let row = outcome.row
            let project = row.project.map { "project \($0.hex)" } ?? "no project"
            if let why = outcome.notMended {
                Output.line("Could not mend a row of \(row.table) of \(project) (\(row.columns.joined(separator: ", "))): \(why). "
                            + "Its commands stay refused.")
            } else if outcome.dropped {
                Output.line("Dropped a damaged row of \(row.table) of \(project) (\(row.columns.joined(separator: ", "))): it held no words "
                            + "and is made again when needed (recorded).")
            } else {
                Output.line("Mended a row of \(row.table) of \(project) (\(outcome.mended.joined(separator: ", "))) from "
                            + "\(["document": "its document's other blocks", "sealed-record": "its sealed record"][WritingStore.source(of: row)] ?? "this vault's audit log") (recorded).")
            }
        }
    }

    static func json(_ outcome: WritingRowMend.Outcome) -> [String: Any] {
        ["table": outcome.row.table, "project": outcome.row.project?.hex ?? NSNull(), "columns": outcome.row.columns,
         "mended": outcome.mended, "dropped": outcome.dropped, "not_mended": outcome.notMended ?? NSNull()]
    }

    /// What mending damaged rows of the sync module's other tables did (closing note s10).
    static func say(_ rows: SyncRowsMend) {
        for (table, count) in rows.mended.sorted(by: { $0.key < $1.key }) {
            Output.line("Mended \(count) damaged row(s) of \(table) from what they are made of.")
        }
        for (table, count) in rows.dropped.sorted(by: { $0.key < $1.key }) {
            Output.line("Dropped \(count) damaged row(s) of \(table) (nothing they held can be made again here; a sync with your own device "
                        + "makes again what it must).")
        }
        for project in rows.waiting {
            Output.line("Project \(project.hex): a damaged row held how far this device's own records of it went, or one of them set aside, "
                        + "so it waits, view-only, for one "
                        + "sync with your own device ('vaultctl sync now --peer DEVICE'), which brings them back: a change before could sign "
                        + "one of their numbers again.")
        }
        for project in rows.rewaiting {
            Output.line("Project \(project.hex): a damaged row named a device it waits for since it was restored, so it waits again, view-only, "
                        + "for that device or, when which one cannot be told, for each device that may hold this device's records of it made "
                        + "after the backup ('vaultctl sync status' names them; 'vaultctl sync now --peer DEVICE' with each): a change before "
                        + "could sign one of their numbers again.")
        }
        if rows.changed { Output.line("Sync state mended; 'vaultctl sync status' shows whether each project syncs.") }
    }

    /// A document a repair replaced or would replace, for --json.
    static func json(_ document: LocalDocumentAtRisk) -> [String: Any] {
        ["project": document.project.hex, "document": document.document.hex, "title": document.title ?? NSNull(),
         "lacked_by_device": document.lackedByDevice]
    }

    /// `vaultctl repair --write-anyway PROJECT` (SECURITY.md §19.10): the project stops waiting for
    /// this device's own records a repair lacked.
    static func writeAnyway(_ given: String, _ arguments: ParsedArguments) throws {
        let context = try WritingContext(arguments)
        let project = try context.project(given)
        let counter = try OwnRecordsAwaited.writeAnyway(project.id, in: context.vault, access: try context.requireAccess(for: project))
        if arguments.has("--json") {
            Output.json(["project": project.id.hex, "awaited": counter.map { $0 as Any } ?? NSNull()])
            return
        }
        guard let counter else {
            Output.line("Project \(project.id.hex) awaits none of this device's own records: nothing changed.")
            return
        }
        let lacked = RestoredOwnRecords.isRestoredWait(counter) ? "the records of it your own devices may hold since the backup it was restored from"
            : "this device's own records of it up to number \(counter)"
        Output.line("Project \(project.id.hex) takes changes here again, without \(lacked) (recorded). "
                    + "If one of your devices holds them, it will refuse this device's records of the project from now on.")
    }

    /// `vaultctl repair --write-anyway-all` (reviewer 12, rb9): every project that waits for this
    /// device's own records stops waiting, each as --write-anyway does (its own audited transaction,
    /// `sync.own-records-released`): one word from an owner none of whose devices holds them, rather
    /// than one per project. A privileged project is released only in a session of its compartment
    /// (--purpose, or the daemon's); the ones no session reads are named with what they need, and the
    /// command then fails as a read of them would (exit 77), after releasing the rest.
    static func writeAnywayAll(_ arguments: ParsedArguments) throws {
        let context = try WritingContext(arguments)
        let waiting = Set(try OwnRecordsAwaited.projects(in: context.vault))
        var released: [ProjectID] = [], unread: [WritingProject] = []
        for project in try context.projects() where waiting.contains(project.id) {
            guard let access = try context.access(for: project) else { unread.append(project); continue }
            if try OwnRecordsAwaited.writeAnyway(project.id, in: context.vault, access: access) != nil { released.append(project.id) }
        }
        if arguments.has("--json") {
            guard unread.isEmpty else { throw stillWaiting(unread, released: released.count) }
            Output.json(["released": released.map(\.hex)])
            return
        }
        Output.line(released.isEmpty ? "No project here waits for this device's own records that this command could release."
                    : "\(released.count) project(s) take changes here again, without the records of them your own devices may hold (recorded). "
                      + "If one of your devices holds them, it will refuse this device's records of those projects from now on.")
        guard unread.isEmpty else { throw stillWaiting(unread, released: released.count) }
    }

    /// The privileged projects `--write-anyway-all` could not release: each is read only in a session.
    private static func stillWaiting(_ projects: [WritingProject], released: Int) -> WritingError {
        WritingError(.privilegedSessionRequired, "\(projects.count) privileged project(s) still wait (\(projects.map(\.id.hex).joined(separator: ", "))), "
                     + "read only in a privileged processing session: run 'vaultctl repair --write-anyway-all --purpose TEXT' "
                     + "(a one-command session on each, recorded; name no patient in it)\(released > 0 ? "; the other \(released) were released" : "")")
    }

    /// The daemon's lock on the vault, held for the repair (`MaintenanceLock`).
    static func holdingTheVault(_ arguments: ParsedArguments) throws -> DaemonLock? {
        try MaintenanceLock.holdingTheVault(arguments, conflict: "a repair would rebuild the writing store under it")
    }
}
