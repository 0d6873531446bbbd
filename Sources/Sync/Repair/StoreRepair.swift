import CryptoVault
import PrivilegedSession
import Writing

/// What `vaultctl repair --from DEVICE` did (SECURITY.md §19.10).
public struct RepairReport: Sendable, Equatable {
    public struct Project: Sendable, Equatable {
        public let project: ProjectID
        public let records: Int
        public let documents: Int
    }

    public var projects: [Project] = []
    /// The folder the damaged store was kept in (`VAULT/damaged/NAME`), and its bytes.
    public var kept = ""
    public var keptBytes = 0
    /// Records checked against this vault's audit log (it recorded their device and counter).
    public var checked = 0
    /// Records this vault's audit log says it held that the device does not hold: they are only in
    /// the kept copy now.
    public var missing = 0
    /// Projects whose records of this device the device lacks, with the highest counter of this
    /// device's records of each that this vault's audit log recorded (review 17 s8, F14): each is
    /// view-only here until a sync with an own device that holds them brings them back, since this
    /// device's next record there would reuse their counters with other content (a fork).
    public var awaiting: [ProjectID: UInt64] = [:]
    /// Projects of this vault (a compartment `project ID`) the device did not offer, kept as they are
    /// here: their rows read whole (`KeptProjects`; before, the rebuild dropped each whole).
    public var keptHere: [ProjectID] = []
    /// Projects of this vault the device did not offer whose own rows here are damaged, with why
    /// (`KeptProjects.problem`): dropped by the rebuild, only in the kept copy (their readable
    /// documents are named first, as `replacedHere`, and need --discard-local).
    public var notOffered: [ProjectID] = []
    public var notOfferedDamage: [ProjectID: String] = [:]
    /// Projects the device offered that this vault never held: `vaultctl sync now` brings them.
    public var notHere: [ProjectID] = []
    /// Projects destroyed here (their compartment shredded, `vaultctl compartment destroy`) that the
    /// device still offers: never rebuilt from it (review 17 s14, N-s14-3: the rebuild dropped the
    /// rows that remember the shredding, and the next sync made the project again).
    public var destroyedHere: [ProjectID] = []
    /// Projects the device offered as someone else's whose origin this vault did not take: it made
    /// them itself, not from that device's offer (attack review s7, N8), so they stay the owner's own.
    public var originsRefused: [ProjectID] = []
    /// Documents here whose words the rebuild replaced or dropped (--discard-local): they are only
    /// in the kept copy now (review 17 s9, N-s9-6).
    public var replacedHere: [LocalDocumentAtRisk] = []
    /// Projects not offered whose documents did not read here while their records held words: the
    /// rebuild dropped them (--discard-local), and no command reads those words now (F17-6).
    public var unreadableHere: [UnreadableProjectAtRisk] = []

    public init() {}

    public var records: Int { projects.reduce(0) { $0 + $1.records } }
}

/// `vaultctl repair --from DEVICE` (SECURITY.md §19.10): rebuilds this vault's writing store (the
/// project data the writing model and sync hold) from one of the owner's own paired devices, over
/// the channel, with the exchange's own requests (`sync.projects`, then `sync.pull` from an empty
/// vector until the device has no more). Every record is verified in memory first (its signature by
/// a key of this vault's roster or the owner's own devices, its causality) and checked against this
/// vault's audit log wherever the log recorded its device and counter; only when all pass is the
/// damaged store copied aside (`DamagedStoreCopy`), then emptied, made again and filled, in one
/// audited transaction: a failure or a crash leaves the vault as it was, or rebuilt, never half.
public struct StoreRepair {
    public let vault: UnlockedVault
    public let transport: SyncTransport
    /// Whether documents here with words the device does not hold may be replaced (--discard-local);
    /// without it the repair is refused, naming them (`LocalDocumentAtRisk`).
    public let discardingLocal: Bool
    let clock: VaultClock

    public init(vault: UnlockedVault, transport: SyncTransport, discardingLocal: Bool = false, clock: VaultClock = .system) {
        self.vault = vault
        self.transport = transport
        self.discardingLocal = discardingLocal
        self.clock = clock
    }

    var peer: DeviceProfile { transport.peer }

    /// Runs the repair. A refusal (not an own device, a record that does not verify or differs from
    /// the audit log) changes nothing but its `sync.repair-refused` entry, and throws.
    public func run() throws -> RepairReport {
        do {
            return try repair()
        } catch let error as RepairError {
            try? vault.record(VaultEvent(.syncRepairRefused, details: [.init("peer", peer.deviceID.hex), .init("reason", error.code.rawValue)]))
            throw error
        }
    }

    private func repair() throws -> RepairReport {
        guard try vault.vault.trust(of: peer.deviceID) == .mine else {
            throw RepairError(.notOwnDevice, """
                device \(peer.name) (\(peer.fingerprint)) is not trusted as your own ('mine'): only your own device rebuilds this vault's \
                writing store ('vaultctl peers trust --peer \(peer.fingerprint) mine' if it is yours)
                """)
        }
        try requireOwnThere()
        let keys = try vault.deviceKeys()
        let author = SyncAuthor(device: keys.profile.deviceID, key: keys.signingKey)
        let compartments = try projectCompartments()
        var report = RepairReport()
        var pulled: [(offer: SyncProjectOffer, compartment: VaultCompartment, records: [ChangeRecord])] = []
        var replicas: [ProjectID: SyncReplica] = [:]
        let offers = try SyncProjectsPage.all { try transport.request(SyncWire.projectsKind, body: SyncOutgoing($0)) }
        let own = try SyncStatus.ownDeviceKeys(vault)
        let shredded = try shreddedHere(offered: offers.map(\.project))
        for offer in offers {
            if shredded.contains(offer.project) { report.destroyedHere.append(offer.project); continue }
            guard let compartment = compartments[offer.project] else { report.notHere.append(offer.project); continue }
            let replica = try pull(offer, devices: own.merging(Self.keys(of: offer.roster)) { kept, _ in kept })
            replicas[offer.project] = replica
            pulled.append((offer, compartment, replica.records(missingFrom: [:])))
        }
        let unoffered = compartments.keys.filter { id in !offers.contains { $0.project == id } }.sorted { $0.hex < $1.hex }
        let keeping = try unofferedKept(unoffered, into: &report)
        let provenance = try provenances(of: pulled.map(\.offer))
        let sessions = try startSessions(for: pulled.map(\.compartment) + report.notOffered.compactMap { compartments[$0] })
        defer { for session in sessions.values { try? session.end() } }
        try check(pulled, own: author.device, sessions: sessions, into: &report)
        // A project dropped for its damage has nothing on the device: each readable document of it is at risk.
        for id in report.notOffered { replicas[id] = SyncReplica(project: id, author: nil, devices: [:]) }
        report.replacedHere = try documentsAtRisk(replicas, sessions: sessions)
        report.unreadableHere = try unreadableAtRisk(report, compartments: compartments, sessions: sessions)
        if !(report.replacedHere.isEmpty && report.unreadableHere.isEmpty) && !discardingLocal {
            throw refusal(naming: report.replacedHere, unreadable: report.unreadableHere)
        }
        let kept = try DamagedStoreCopy.keep(vault.vault, at: clock.now())
        report.kept = kept.name
        report.keptBytes = kept.bytes
        try vault.record(VaultEvent(.syncRepairKept, details: [.init("peer", peer.deviceID.hex), .init("kept", kept.name), .init("bytes", String(kept.bytes))]))
        try rebuild(pulled, keeping: keeping, remembering: try rememberable(shredded), author: author, own: own, provenance: provenance,
                    sessions: sessions, into: &report)
        return report
    }

    /// A device that does not count this one as its own offers it only what it shares with it: a
    /// rebuild from it dropped every project of the owner's, exit 0 (reviewer s17, F17-11). An empty
    /// offer asks: the owner's own devices take it (making nothing), any other refuses it.
    private func requireOwnThere() throws {
        do {
            _ = try transport.request(SyncWire.offerKind, body: .emptyOffer)
        } catch let error as SyncExchangeError where error.code == .offerRefused {
            throw RepairError(.notOwnThere, """
                device \(peer.name) (\(peer.fingerprint)) does not count this device as its own: it would offer none of your \
                projects, so nothing was changed ('vaultctl peers trust --peer THIS-DEVICE mine' on \(peer.name) if both are yours)
                """)
        }
    }

    /// The projects this vault holds shredded (`WritingStore.isShredded`) among those offered and
    /// those it holds records of: a shredded project's rows stay as the memory that it was, and an
    /// offer never makes it again (N-s13-1), so the rebuild keeps them too (N-s14-3).
    private func shreddedHere(offered: [ProjectID]) throws -> Set<ProjectID> {
        try vault.transaction { tx in
            let store = WritingStore(tx)
            return try Set(offered).union(try VaultSync.projectsWithRecords(in: tx.database)).filter { try store.isShredded($0) }
        }
    }

    /// Of the shredded projects, those whose rows read whole (`KeptProjects.problem`): carried through
    /// the reset as a kept project's are (nothing of theirs is sealed any more). One whose rows do not
    /// read whole is not carried: its memory is in the kept copy only.
    private func rememberable(_ shredded: Set<ProjectID>) throws -> [ProjectID] {
        guard !shredded.isEmpty else { return [] }
        let tables = try KeptProjects.tables()
        return try vault.transaction { tx in
            shredded.filter { KeptProjects.problem(of: $0, in: tx.database, tables: tables) == nil }.sorted { $0.hex < $1.hex }
        }
    }

    /// Sorts the projects here that the device does not offer into those kept as they are here (their
    /// rows read whole) and those dropped for their damage (with why); returns the kept ones'
    /// compartments, whose sealed records the reset keeps.
    private func unofferedKept(_ unoffered: [ProjectID], into report: inout RepairReport) throws -> [VaultCompartment] {
        guard !unoffered.isEmpty else { return [] }
        let tables = try KeptProjects.tables()
        return try vault.transaction { tx in
            var kept: [VaultCompartment] = []
            for id in unoffered {
                let problem: String?
                do {
                    let project = try WritingStore(tx).project(id)
                    problem = KeptProjects.problem(of: id, in: tx.database, tables: tables)
                    if problem == nil { kept.append(project.compartment) }
                } catch {
                    problem = "its project row does not read (\((error as? WritingError)?.code.rawValue ?? (error as? CryptoVaultError)?.code.rawValue ?? "unreadable"))"
                }
                if let problem {
                    report.notOffered.append(id)
                    report.notOfferedDamage[id] = problem
                } else {
                    report.keptHere.append(id)
                }
            }
            return kept
        }
    }

    /// This vault's project compartments (`project ID`, or `project ID (synced)`), by project id:
    /// they survive whatever happened to the writing store's tables, with their keys.
    private func projectCompartments() throws -> [ProjectID: VaultCompartment] {
        var found: [ProjectID: VaultCompartment] = [:]
        for compartment in try vault.compartments() {
            let words = compartment.name.split(separator: " ")
            guard words.count == 2 || (words.count == 3 && words[2] == "(synced)"), words[0] == "project",
                  let id = try? ProjectID(hex: String(words[1])) else { continue }
            if found[id] == nil || words.count == 2 { found[id] = compartment }
        }
        return found
    }

    static func keys(of roster: [SyncRosterEntry]) -> [DeviceID: [UInt8]] {
        Dictionary(roster.map { ($0.device, $0.signingKey) }) { first, _ in first }
    }

    /// Every record the device holds of the project, verified in a replica in memory (signature,
    /// seal of the format, causality).
    private func pull(_ offer: SyncProjectOffer, devices: [DeviceID: [UInt8]]) throws -> SyncReplica {
        var replica = SyncReplica(project: offer.project, author: nil, devices: devices)
        for _ in 1...SyncInitiator.maximumRounds {
            let request = SyncPullRequest(project: offer.project, held: replica.versionVector)
            let answer: SyncPullAnswer
            do { answer = try SyncPullAnswer(parsing: try transport.request(SyncWire.pullKind, body: SyncOutgoing(request))) } catch let error as SyncExchangeError {
                throw request.refusedByOlderBuild(error, peer: peer.name) ?? error  // a device of a build before tips (closing note s11)
            }
            for bytes in answer.records { replica.receive(bytes) }
            guard answer.more, !answer.records.isEmpty else { break }
        }
        replica.endExchange()
        if let refusal = replica.refusals.first {
            throw RepairError(.recordRefused, "project \(offer.project): device \(peer.fingerprint) sent a record that does not verify (\(refusal.error.code.rawValue)); nothing was changed")
        }
        return replica
    }

    /// The documents here each pulled project's records would give other words, or lack (read
    /// before anything changes, in the repair's sessions for a privileged project's).
    private func documentsAtRisk(_ replicas: [ProjectID: SyncReplica],
                                 sessions: [CompartmentID: PrivilegedProcessingSession]) throws -> [LocalDocumentAtRisk] {
        try vault.transaction { tx in
            var found: [LocalDocumentAtRisk] = []
            for (id, pulled) in replicas.sorted(by: { $0.key.hex < $1.key.hex }) {
                guard let project = try? WritingStore(tx).project(id) else { continue }
                let access: RecordAccess = sessions[project.compartment.id].map { .session($0) } ?? .vault
                var replica = pulled
                found += LocalDocumentAtRisk.find(in: project, store: WritingStore(tx, access: access, clock: clock), replica: &replica)
            }
            return found
        }
    }

    /// The projects dropped for their damage (`notOffered`) whose words would be readable nowhere
    /// after the rebuild (`UnreadableProjectAtRisk`).
    private func unreadableAtRisk(_ report: RepairReport, compartments: [ProjectID: VaultCompartment],
                                  sessions: [CompartmentID: PrivilegedProcessingSession]) throws -> [UnreadableProjectAtRisk] {
        try vault.transaction { tx in
            try report.notOffered.compactMap { id in
                guard let compartment = compartments[id] else { return nil }
                let access: RecordAccess = sessions[compartment.id].map { .session($0) } ?? .vault
                return try UnreadableProjectAtRisk.find(id, damage: report.notOfferedDamage[id] ?? "unread", compartment: compartment,
                                                        store: WritingStore(tx, access: access, clock: clock))
            }
        }
    }

    /// The repair refused because it would replace words only this vault holds (review 17 s9,
    /// N-s9-6: a repair once dropped a laptop's unsynced words, saying nothing), or leave words no
    /// command reads (F17-6).
    private func refusal(naming documents: [LocalDocumentAtRisk], unreadable: [UnreadableProjectAtRisk]) -> RepairError {
        guard documents.isEmpty else { return refusal(naming: documents, more: unreadable) }
        return RepairError(.localWordsAtRisk, """
            \(unreadable.map(\.named).joined(separator: "; ")); that device (\(peer.name), \(peer.fingerprint)) does not hold it: \
            nothing was changed. A rebuild would leave those words readable nowhere, not even in the copy it keeps ('vaultctl doc \
            show --read-only' reads a document through the rows that are damaged). 'vaultctl restore-backup FILE --into DIR' brings \
            back a backup made before the damage; --discard-local rebuilds without it, its records then only in the kept copy
            """)
    }

    private func refusal(naming documents: [LocalDocumentAtRisk], more unreadable: [UnreadableProjectAtRisk]) -> RepairError {
        let shown = (documents.prefix(10).map(\.named) + unreadable.map(\.named)).joined(separator: "; ")
        let more = documents.count > 10 ? "; and \(documents.count - 10) more" : ""
        return RepairError(.localWordsAtRisk, """
            \(documents.count) document(s) here hold words that device does not (\(peer.name), \(peer.fingerprint)): \(shown)\(more); \
            nothing was changed. 'vaultctl sync now --peer \(peer.fingerprint)' sends them first where their project syncs \
            ('vaultctl repair' first mends a project whose stored records are damaged); or \
            --discard-local replaces them, and their words here are then only in the kept copy ('vaultctl doc show PROJECT DOC \
            --vault VAULT/damaged/NAME --read-only' reads them)
            """)
    }

    /// How this vault came to hold each offered project that the offer says is someone else's
    /// (`ProjectProvenance`), read before the rebuild's transaction (the audit log, for a project
    /// made before `sync_project_sources`).
    private func provenances(of offers: [SyncProjectOffer]) throws -> [ProjectID: ProjectProvenance] {
        var found: [ProjectID: ProjectProvenance] = [:]
        for offer in offers where offer.origin != nil { found[offer.project] = try ProjectProvenance.of(offer.project, in: vault) }
        return found
    }

    private func startSessions(for compartments: [VaultCompartment]) throws -> [CompartmentID: PrivilegedProcessingSession] {
        var sessions: [CompartmentID: PrivilegedProcessingSession] = [:]
        for compartment in compartments where compartment.isPrivileged && sessions[compartment.id] == nil {
            sessions[compartment.id] = try PrivilegedProcessingSession.start(vault: vault, compartment: compartment, actor: "repair",
                                                                             purpose: "repair from paired device \(peer.fingerprint)")
        }
        return sessions
    }

    /// Each record whose device and counter this vault's audit log recorded must be the record it
    /// recorded (same hash); those it recorded that the device lacks are counted as missing.
    private func check(_ pulled: [(offer: SyncProjectOffer, compartment: VaultCompartment, records: [ChangeRecord])], own: DeviceID,
                       sessions: [CompartmentID: PrivilegedProcessingSession], into report: inout RepairReport) throws {
        let audited = try AuditedRecords(vault, projects: Set(pulled.map(\.offer.project)), own: own, sessions: Set(sessions.keys),
                                         privileged: Set(pulled.map(\.compartment).filter(\.isPrivileged).map(\.id)))
        var seen = Set<AuditedRecords.Key>()
        for item in pulled {
            for record in item.records {
                let key = AuditedRecords.Key(project: item.offer.project, device: record.device, counter: record.counter)
                guard let hash = audited.hashes[key] else { continue }
                guard hash == ByteEncoding.hex(record.hash) else {
                    throw RepairError(.auditMismatch, """
                        project \(item.offer.project): device \(peer.fingerprint) sent record \(record.counter) of device \(record.device) \
                        with another hash than this vault's audit log recorded; nothing was changed
                        """)
                }
                seen.insert(key)
                report.checked += 1
            }
        }
        report.missing = audited.hashes.keys.filter { !seen.contains($0) }.count
        for item in pulled {
            let recorded = audited.hashes.keys.filter { $0.project == item.offer.project && $0.device == own }.map(\.counter).max() ?? 0
            let held = item.records.filter { $0.device == own }.map(\.counter).max() ?? 0
            if recorded > held { report.awaiting[item.offer.project] = recorded }
        }
    }

    /// A project someone else's device shared with the owner keeps its role (SECURITY.md §19.10):
    /// the reset drops `writing_projects` with its view-only mark, while where the project came
    /// from is the exchange's (`sync_origins`, not reset), or, when this vault kept none, what the
    /// own device's offer says (§19.9), as an exchange would take it: only for a project this vault
    /// made from that device's offer, or from the origin's own (attack review s7, N8, the repair's
    /// half of s6 A12). A project made here stays the owner's own whatever the device says: the
    /// origin refused as `originMismatch`, recorded. View-only again exactly when that role is viewer.
    private func keepRole(of project: WritingProject, offer: SyncProjectOffer, own: [DeviceID: [UInt8]], provenance: ProjectProvenance?,
                          exchange: SyncExchangeStore, store: WritingStore, refused: inout [ProjectID]) throws {
        let someoneElses = { (device: DeviceID) in own[device] == nil }
        var origin = try exchange.origin(of: project.id)
        if origin == nil, let offered = offer.origin, someoneElses(offered) {
            guard try mayTake(offered, of: project, provenance: provenance, exchange: exchange) else {
                try store.transaction.record(.syncExchangeRefused, details: [
                    .init("peer", peer.deviceID.hex), .init("request", SyncWire.projectsKind), .init("reason", SyncExchangeErrorCode.originMismatch.rawValue),
                    .init("project", project.id.hex), .init("offered-origin", offered.hex),
                ])
                refused.append(project.id)
                return
            }
            let role: SyncAccess = offer.access == .viewer ? .viewer : .editor
            try exchange.setOrigin(of: project.id, device: offered, access: role)
            // Recorded as any origin learned is, so the audit log names every origin a mend may
            // have to put back (`SyncOriginHistory`; attack review s6, P2).
            try store.transaction.record(.syncProjectOriginLearned, compartment: project.compartment.id, subject: project.id,
                                         details: [.init("peer", peer.deviceID.hex), .init("origin", offered.hex), .init("access", role.name)])
            origin = (offered, role)
        }
        guard let origin, someoneElses(origin.device), origin.access == .viewer else { return }
        try store.setSyncedViewOnly(project.id, true, from: origin.device.hex)
    }

    /// Whether this vault, holding no origin for `project`, takes the device's word that it is
    /// `offered`'s: only when it made the project from this device's offer or from `offered`'s own,
    /// and never shared it with `offered` (only owners share). `SyncEndpoint.recognise` asks the same.
    private func mayTake(_ offered: DeviceID, of project: WritingProject, provenance: ProjectProvenance?,
                         exchange: SyncExchangeStore) throws -> Bool {
        guard provenance == .madeFromOffer(of: peer.deviceID) || provenance == .madeFromOffer(of: offered) else { return false }
        return try exchange.share(of: project.compartment.id, with: offered) == nil
    }

    /// One transaction: the store emptied and made again, each project restored in its compartment,
    /// its roster kept, its records stored and its documents written by `VaultSync.receive`.
    private func rebuild(_ pulled: [(offer: SyncProjectOffer, compartment: VaultCompartment, records: [ChangeRecord])], keeping: [VaultCompartment],
                         remembering shredded: [ProjectID], author: SyncAuthor,
                         own: [DeviceID: [UInt8]], provenance: [ProjectID: ProjectProvenance],
                         sessions: [CompartmentID: PrivilegedProcessingSession], into report: inout RepairReport) throws {
        let checked = report.checked, missing = report.missing, keptCopy = report.kept, awaiting = report.awaiting, keptHere = report.keptHere
        let dropped = report.notOffered
        let tables = keptHere.isEmpty && shredded.isEmpty ? [] : try KeptProjects.tables()
        (report.projects, report.originsRefused) = try vault.transaction { tx in
            try KeptProjects.copyAside(keptHere + shredded, in: tx.database, tables: tables)
            let waits = try CarriedWaits.read(in: tx.database)
            let reset = try WritingStoreReset.reset(in: tx, keeping: keeping)
            try KeptProjects.putBack(in: tx.database, tables: tables)
            // A project dropped for its damage takes its provenance rows with it: left, they would
            // name no project, damage that stops every exchange until a plain repair (rows13).
            for id in dropped { try SyncExchangeStore(database: tx.database).forgetProvenance(of: id) }
            try tx.record(.syncRepairReset, details: [.init("peer", peer.deviceID.hex), .init("tables", String(reset.tables)),
                                                      .init("sealed", String(reset.sealed)), .init("kept-here", String(keptHere.count))])
            var projects: [RepairReport.Project] = [], originsRefused: [ProjectID] = []
            // Privileged projects first, as an exchange takes them (SyncInitiator.privilegedFirst):
            // a note pasted from a chart into a shared book must be privileged here before the book's
            // copy of it is written, or it is ordinary first (§11.7; reviewer14's lg8, N-s14-7).
            for item in pulled.filter({ $0.compartment.isPrivileged }) + pulled.filter({ !$0.compartment.isPrivileged }) {
                let access: RecordAccess = sessions[item.compartment.id].map { .session($0) } ?? .vault
                let store = WritingStore(tx, access: access, clock: clock)
                let project = try store.restoreProject(item.offer.project, named: item.offer.name, kind: item.offer.kind, in: item.compartment)
                let exchange = SyncExchangeStore(database: tx.database)
                try keepRole(of: project, offer: item.offer, own: own, provenance: provenance[project.id], exchange: exchange, store: store,
                             refused: &originsRefused)
                try exchange.addRoster(item.offer.roster, of: project.id)
                let devices = try exchange.roster(of: project.id).merging(own) { kept, _ in kept }
                let sync = VaultSync(store, author: author, devices: devices)
                let receipt = try sync.receive(item.records.map(\.encoded), for: project.id)
                guard receipt.refused.isEmpty else {
                    throw RepairError(.recordRefused, "project \(project.id): a record was refused as it was stored (\(receipt.refused[0].error.code.rawValue)); nothing was changed")
                }
                if let counter = awaiting[project.id] { try sync.awaitOwnRecords(of: project.id, upTo: counter, at: clock.now()) }
                try waits.putBack(project.id, sync: sync, from: peer.deviceID, mine: own[peer.deviceID] != nil,
                                  viewOnly: try exchange.origin(of: project.id)?.access == .viewer, at: clock.now())
                projects.append(.init(project: project.id, records: receipt.stored, documents: receipt.documentsWritten))
            }
            try tx.record(.syncRepair, details: [.init("peer", peer.deviceID.hex), .init("projects", String(projects.count)),
                                                 .init("records", String(projects.reduce(0) { $0 + $1.records })),
                                                 .init("checked", String(checked)), .init("missing", String(missing)),
                                                 .init("awaiting", String(awaiting.count)),
                                                 .init("kept-here", String(keptHere.count)),
                                                 .init("kept", keptCopy)])
            return (projects, originsRefused)
        }
    }
}
