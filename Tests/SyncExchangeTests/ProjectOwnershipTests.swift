import Appliance
import CryptoVault
import PeerChannel
@testable import Sync
import Testing
import TestSupport
import Writing

/// Only a project's owner shares it, and someone else's device can never make the owner's own
/// project view-only on the owner's devices (attack review of issue 17, SECURITY.md §19.9 "Whose
/// project it is"). The desk and the laptop are the owner's (`mine`); the colleague is someone
/// else's, paired with both: a real vault answering on a channel of its own, or a `StrangerDevice`
/// (forging answerer) where the colleague runs other software.
@Suite(.serialized) struct ProjectOwnershipTests {
    typealias F = SyncExchangeFixture

    /// Someone else's real vault, paired with the desk and the laptop (trusted `other` on all sides),
    /// answering the exchange on a channel of its own on loopback.
    final class Colleague {
        let vault: TestVault
        let keys: DeviceKeys
        let server: ChannelServer
        let f: F

        init(_ f: F) throws {
            self.f = f
            vault = try TestVault(modules: F.modules)
            keys = try vault.unlocked.deviceKeys(named: "colleague")
            for (owner, ownerKeys) in [(f.desk, f.deskKeys), (f.laptop, f.laptopKeys)] {
                try owner.unlocked.storePairing(FamilyPairing(peer: keys.profile, role: .host, pairedAt: 1))
                try vault.unlocked.storePairing(FamilyPairing(peer: ownerKeys.profile, role: .join, pairedAt: 1))
                try owner.unlocked.setTrust(.other, of: keys.profile.deviceID, atPairing: true)
                try vault.unlocked.setTrust(.other, of: ownerKeys.profile.deviceID, atPairing: true)
            }
            let own = vault.unlocked
            server = try ChannelServer(address: SocketAddress(parsing: "127.0.0.1:0"), localKeys: keys,
                                       pinnedPeers: { try own.vault.familyPairings() },
                                       services: [SyncChannelService(vault: vault.unlocked, coordinator: nil)])
            server.start()
        }

        deinit { server.stop() }

        var device: DeviceID { keys.profile.deviceID }

        /// `vaultctl sync now` on the colleague, with the desk.
        @discardableResult
        func syncWithDesk() throws -> SyncRunReport {
            let client = try ChannelClient(connectingTo: f.server.address, localKeys: keys, peer: f.deskKeys.profile)
            return try SyncInitiator(vault: vault.unlocked, transport: ChannelSyncTransport(client), coordinator: nil).run()
        }

        /// `vaultctl sync now` on `asker` (the desk or the laptop), with the colleague.
        @discardableResult
        func answer(_ asker: TestVault, _ askerKeys: DeviceKeys) throws -> SyncRunReport {
            let client = try ChannelClient(connectingTo: server.address, localKeys: askerKeys, peer: keys.profile)
            return try SyncInitiator(vault: asker.unlocked, transport: ChannelSyncTransport(client), coordinator: nil).run()
        }

        func project(_ id: ProjectID) throws -> WritingProject {
            try vault.unlocked.transaction { tx in try WritingStore(tx).project(id) }
        }
    }

    static func held(_ vault: TestVault, _ id: ProjectID) throws -> WritingProject {
        try vault.unlocked.transaction { tx in try WritingStore(tx).project(id) }
    }

    static func origin(_ vault: TestVault, _ id: ProjectID) throws -> (device: DeviceID, access: SyncAccess)? {
        try vault.unlocked.transaction { tx in try SyncExchangeStore(database: tx.database).origin(of: id) }
    }

    /// The details of every entry of `action` as name → value, in order.
    static func entries(_ vault: TestVault, _ action: AuditAction) -> [[String: String]] {
        vault.recording.events.withLock { events in
            events.filter { $0.action == action }.map { Dictionary($0.details.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a }) }
        }
    }

    // MARK: The owner's project, passed on by a colleague

    /// The review's scenario with the colleague running this software: the desk shares its project
    /// with the colleague as editor; the colleague cannot share it on (refused and recorded there,
    /// by `vaultctl share` and in the exchange, even with a share recorded before this rule); the
    /// laptop never makes it from the colleague, and takes it from the desk as the owner's own.
    @Test func aColleagueCannotPassTheOwnersProjectOnAndItReachesTheLaptopAsTheOwnersOwn() throws {
        let f = try F()
        let colleague = try Colleague(f)
        let brief = try F.project(f.desk, "Brief")
        let draft = try F.document(f.desk, in: brief, "Draft", ["first", "second"])
        try F.share(brief, of: f.desk, with: colleague.vault, role: .editor)
        #expect(try colleague.syncWithDesk().received == 1)
        let theirs = try colleague.project(brief.id)
        #expect(try Self.origin(colleague.vault, brief.id)?.device == f.deskKeys.profile.deviceID)

        // `vaultctl share` of the project's compartment on the colleague: refused before anything
        // is wrapped, and recorded with the reason and the project's owner.
        #expect(throws: SyncExchangeError(.notOwner, "")) {
            try SyncControl.shared(theirs.compartment, with: f.laptopKeys.profile.deviceID, role: .viewer, in: colleague.vault.unlocked)
        }
        let refusedShare = try #require(Self.entries(colleague.vault, .shareRefused).last)
        #expect(refusedShare["reason"] == "notOwner" && refusedShare["origin"] == f.deskKeys.profile.deviceID.hex, "\(refusedShare)")
        #expect(refusedShare["device"] == f.laptopKeys.profile.deviceID.hex && refusedShare["role"] == "viewer")

        // A share recorded before the rule, and a grant the laptop accepted: still not offered.
        try colleague.vault.unlocked.transaction { tx in
            try SyncExchangeStore(database: tx.database).setShare(of: theirs.compartment.id, with: f.laptopKeys.profile.deviceID,
                                                                  role: .viewer, at: 1)
        }
        _ = try f.laptop.unlocked.acceptShareGrant(try colleague.vault.unlocked.makeShareGrant(of: theirs.compartment, for: f.laptopKeys.profile,
                                                                                                role: .viewer))
        let first = try colleague.answer(f.laptop, f.laptopKeys)
        #expect(first.projects.isEmpty, "\(first)")
        #expect(try !F.hasProject(f.laptop, brief.id))
        let refusedOffer = try #require(Self.entries(colleague.vault, .syncExchangeRefused).last)
        #expect(refusedOffer["reason"] == "notOwner" && refusedOffer["project"] == brief.id.hex, "\(refusedOffer)")
        #expect(refusedOffer["origin"] == f.deskKeys.profile.deviceID.hex && refusedOffer["peer"] == f.laptopKeys.profile.deviceID.hex)

        // The laptop takes it from the desk as the owner's own: not view-only, no origin, and its
        // edits reach the desk.
        try f.syncLaptop()
        let laptops = try Self.held(f.laptop, brief.id)
        #expect(!laptops.isViewOnly)
        #expect(try Self.origin(f.laptop, brief.id) == nil)
        try F.edit(f.laptop, laptops, draft, block: 0, to: "first, on the laptop")
        #expect(try f.syncLaptop().sent == 1)
        #expect(try F.texts(f.desk, brief.id, draft) == ["first, on the laptop", "second"])
    }

    /// The same with the colleague running other software that says nothing of where the project
    /// came from: the laptop, meeting it first, makes the project view-only from it. The desk's
    /// offer (the owner's own) no longer takes it back (attack review s6, A1: nothing in an offer
    /// tells this case from a colleague's project an own device got before offers said whose a
    /// project is): refused as `originMismatch`, recorded with the origin, the laptop still view-only.
    @Test func theOwnersDeskDoesNotTakeBackAProjectAColleagueMadeViewOnlyOnTheLaptop() throws {
        let f = try F()
        let stranger = try StrangerDevice(pairedWithLaptopOf: f)
        try f.desk.unlocked.storePairing(FamilyPairing(peer: stranger.keys.profile, role: .host, pairedAt: 1))
        try f.desk.unlocked.setTrust(.other, of: stranger.device, atPairing: true)
        let brief = try F.project(f.desk, "Brief")
        _ = try F.document(f.desk, in: brief, "Draft", ["first", "second"])
        try SyncControl.shared(brief.compartment, with: stranger.device, role: .editor, in: f.desk.unlocked)
        try stranger.grant(brief.id, role: .viewer)
        stranger.answerer.offer(brief.id, access: .viewer, privileged: false, named: "Brief")
        try stranger.syncLaptop()
        #expect(try Self.held(f.laptop, brief.id).isViewOnly)

        let report = try f.syncLaptop()
        #expect(report.projects.first { $0.project == brief.id }?.refused == ["originMismatch"], "\(report)")
        #expect(try Self.held(f.laptop, brief.id).isViewOnly)
        #expect(try Self.origin(f.laptop, brief.id)?.device == stranger.device)
        let refused = try #require(Self.entries(f.laptop, .syncExchangeRefused).last)
        #expect(refused["reason"] == "originMismatch" && refused["origin"] == stranger.device.hex
                && refused["peer"] == f.deskKeys.profile.deviceID.hex && refused["project"] == brief.id.hex, "\(refused)")
        #expect(F.details(f.laptop, .writingProjectViewOnly, "view-only") == ["yes"])
    }

    /// `vaultctl sync now` on the desk, asking the laptop (answering on a channel of its own).
    static func deskAsksLaptop(_ f: F) throws -> SyncRunReport {
        try fromDeskToLaptop(f) { transport in try SyncInitiator(vault: f.desk.unlocked, transport: transport, coordinator: nil).run() }
    }

    /// `body` with a channel from the desk to the laptop, answering on a channel of its own.
    static func fromDeskToLaptop<Result>(_ f: F, _ body: (ChannelSyncTransport) throws -> Result) throws -> Result {
        let laptop = f.laptop.unlocked
        let server = try ChannelServer(address: SocketAddress(parsing: "127.0.0.1:0"), localKeys: f.laptopKeys,
                                       pinnedPeers: { try laptop.vault.familyPairings() },
                                       services: [SyncChannelService(vault: laptop, coordinator: nil)])
        server.start()
        defer { server.stop() }
        return try body(ChannelSyncTransport(try ChannelClient(connectingTo: server.address, localKeys: f.deskKeys, peer: f.laptopKeys.profile)))
    }

    /// A12's set-up: the desk's project Brief, whose roster names a colleague (vouched for by
    /// another own device) that makes it view-only, as its own, on the laptop that never held it.
    static func briefMisledOnTheLaptop(_ f: F) throws -> (stranger: StrangerDevice, brief: WritingProject, draft: NodeID) {
        let stranger = try StrangerDevice(pairedWithLaptopOf: f)
        let brief = try F.project(f.desk, "Brief")
        let draft = try F.document(f.desk, in: brief, "Draft", ["first", "second"])
        try f.desk.unlocked.transaction { tx in
            let profile = stranger.keys.profile
            _ = try SyncExchangeStore(database: tx.database).addRoster(
                [SyncRosterEntry(device: profile.deviceID, signingKey: profile.signingPublicKey, noiseKey: profile.noisePublicKey)], of: brief.id)
        }
        try stranger.grant(brief.id, role: .viewer)
        stranger.answerer.offer(brief.id, access: .viewer, privileged: false, named: "Brief")
        try stranger.syncLaptop()
        try #require(try Self.held(f.laptop, brief.id).isViewOnly)
        try #require(try Self.origin(f.laptop, brief.id)?.device == stranger.device)
        return (stranger, brief, draft)
    }

    /// A12 (attack review s6): the owner shared the desk's project with a colleague from another own
    /// device, so the desk's roster names the colleague (vouched by that device) but the desk has no
    /// share of it: shares are per vault. The colleague, running other software, makes it view-only,
    /// with no origin, on a new own device (the laptop) that never held it. The desk asking the
    /// laptop hears it offered as the colleague's: the desk made the project itself, so it learns no
    /// origin (before, it did, and the owner's own project became view-only on the desk, the owner's
    /// share of it refused): refused `originMismatch`, still the owner's own and writable. (The
    /// desk recorded Brief as made here when it made it, `sync_projects_made_here`; the audit log's
    /// fallback for projects made before that table is `ProjectProvenanceTests`'.)
    @Test func anOwnDeviceAColleagueMisledNeverMakesAProjectMadeOnTheDeskSomeoneElses() throws {
        let f = try F()
        let (stranger, brief, draft) = try Self.briefMisledOnTheLaptop(f)

        let report = try Self.deskAsksLaptop(f)
        #expect(report.projects.first { $0.project == brief.id }?.refused == ["originMismatch"], "\(report)")
        let desks = try Self.held(f.desk, brief.id)
        #expect(!desks.isViewOnly)
        #expect(try Self.origin(f.desk, brief.id) == nil)
        #expect(Self.entries(f.desk, .syncProjectOriginLearned).isEmpty)
        let refused = try #require(Self.entries(f.desk, .syncExchangeRefused).last)
        #expect(refused["reason"] == "originMismatch" && refused["project"] == brief.id.hex
                && refused["peer"] == f.laptopKeys.profile.deviceID.hex, "\(refused)")
        // Still the owner's: written and shared from the desk as before.
        try F.edit(f.desk, desks, draft, block: 0, to: "first, still the owner's")
        #expect(try F.texts(f.desk, brief.id, draft) == ["first, still the owner's", "second"])
        try SyncControl.requireOwner(of: desks.compartment, sharingWith: stranger.device, role: .viewer, in: f.desk.unlocked)
    }

    /// N8 (attack review s7), A12's repair half: after A12's set-up, the desk's writing store is
    /// rebuilt from the laptop (`vaultctl repair --from laptop`), which offers Brief as the
    /// colleague's, viewer. The desk made Brief itself, so the repair takes no origin from that
    /// offer, as an exchange takes none: refused `originMismatch` (recorded with the offered origin,
    /// and in the report), Brief still the owner's own, writable and shareable. Before, the repair
    /// took the offered origin: the owner's own project became the colleague's, view-only, here.
    @Test func aRepairFromAnOwnDeviceAColleagueMisledKeepsAProjectMadeOnTheDeskTheOwnersOwn() throws {
        let f = try F()
        let (stranger, brief, _) = try Self.briefMisledOnTheLaptop(f)

        // --discard-local: the desk holds 'Draft', which the laptop does not (review 17 s9, N-s9-6: named, refused without it).
        let report = try Self.fromDeskToLaptop(f) { transport in try StoreRepair(vault: f.desk.unlocked, transport: transport, discardingLocal: true).run() }
        #expect(report.projects.map(\.project) == [brief.id], "\(report)")
        #expect(report.originsRefused == [brief.id], "\(report)")
        let desks = try Self.held(f.desk, brief.id)
        #expect(!desks.isViewOnly)
        #expect(try Self.origin(f.desk, brief.id) == nil)
        #expect(Self.entries(f.desk, .syncProjectOriginLearned).isEmpty)
        let refused = try #require(Self.entries(f.desk, .syncExchangeRefused).last)
        #expect(refused == ["peer": f.laptopKeys.profile.deviceID.hex, "request": SyncWire.projectsKind, "reason": "originMismatch",
                            "project": brief.id.hex, "offered-origin": stranger.device.hex])
        // Still the owner's: written and shared from the desk as before.
        let later = try F.document(f.desk, in: desks, "After the repair", ["the owner's words"])
        #expect(try F.texts(f.desk, brief.id, later) == ["the owner's words"])
        try SyncControl.requireOwner(of: desks.compartment, sharingWith: stranger.device, role: .viewer, in: f.desk.unlocked)
    }

    /// A1 (attack review s6): a colleague's project the laptop holds view-only from the colleague,
    /// and the desk holds as an own device passed it on before offers said whose a project is (no
    /// origin, writable). The laptop asking the desk must not make it the owner's own: refused
    /// (`originMismatch`, recorded with origin and peer), still the colleague's in its role here,
    /// not shareable onward, and the colleague's later words still reach the laptop.
    @Test func anOwnDevicesOfferWithoutOriginNeverMakesAColleaguesProjectTheOwnersOwn() throws {
        let f = try F()
        let colleague = try Colleague(f)
        let memo = try colleague.vault.unlocked.createWritingProject(named: "Memo", register: .general, kind: .document)
        let draft = try F.document(colleague.vault, in: memo, "Draft", ["the colleague's words"])
        try F.share(memo, of: colleague.vault, with: f.laptop, role: .viewer)
        #expect(try colleague.answer(f.laptop, f.laptopKeys).received == 1)
        #expect(try Self.held(f.laptop, memo.id).isViewOnly)
        try f.syncLaptop()
        #expect(try F.hasProject(f.desk, memo.id))
        // The desk's hold as a device before origins made it: no origin row, writable.
        try f.desk.unlocked.transaction { tx in
            try SyncExchangeStore(database: tx.database).removeOrigin(of: memo.id)
            try WritingStore(tx).setSyncedViewOnly(memo.id, false, from: "test")
        }

        let report = try f.syncLaptop()
        #expect(report.projects.first { $0.project == memo.id }?.refused == ["originMismatch"], "\(report)")
        let refused = try #require(Self.entries(f.laptop, .syncExchangeRefused).last)
        #expect(refused["reason"] == "originMismatch" && refused["origin"] == colleague.device.hex
                && refused["peer"] == f.deskKeys.profile.deviceID.hex, "\(refused)")
        let laptops = try Self.held(f.laptop, memo.id)
        #expect(laptops.isViewOnly)
        let origin = try #require(try Self.origin(f.laptop, memo.id))
        #expect(origin.device == colleague.device && origin.access == .viewer)
        #expect(Self.entries(f.laptop, .syncProjectOriginLearned).isEmpty)
        #expect(throws: SyncExchangeError(.notOwner, "")) {
            try SyncControl.requireOwner(of: laptops.compartment, sharingWith: f.deskKeys.profile.deviceID, role: .editor, in: f.laptop.unlocked)
        }
        try F.edit(colleague.vault, try colleague.project(memo.id), draft, block: 0, to: "the colleague's later words")
        #expect(try colleague.answer(f.laptop, f.laptopKeys).received == 1)
        #expect(try F.texts(f.laptop, memo.id, draft) == ["the colleague's later words"])
    }

    /// The upgrade's other side: the laptop holds a colleague's project as an own device passed it
    /// on before offers said whose a project is (no origin row, writable); the desk holds it from
    /// the colleague as viewer. The desk's offer names the origin, and the laptop takes it (its
    /// roster names the colleague; it never shared the project): view-only again, recorded.
    @Test func aProjectHeldWithoutOriginLearnsItFromAnOwnDevicesOffer() throws {
        let f = try F()
        let colleague = try Colleague(f)
        let memo = try colleague.vault.unlocked.createWritingProject(named: "Memo", register: .general, kind: .document)
        _ = try F.document(colleague.vault, in: memo, "Draft", ["the colleague's words"])
        try F.share(memo, of: colleague.vault, with: f.desk, role: .viewer)
        #expect(try colleague.answer(f.desk, f.deskKeys).received == 1)
        try f.syncLaptop()
        try f.laptop.unlocked.transaction { tx in
            try SyncExchangeStore(database: tx.database).removeOrigin(of: memo.id)
            try WritingStore(tx).setSyncedViewOnly(memo.id, false, from: "test")
        }

        let report = try f.syncLaptop()
        #expect(report.projects.first { $0.project == memo.id }?.refused == [], "\(report)")
        #expect(try Self.held(f.laptop, memo.id).isViewOnly)
        let origin = try #require(try Self.origin(f.laptop, memo.id))
        #expect(origin.device == colleague.device && origin.access == .viewer)
        #expect(Self.entries(f.laptop, .syncProjectOriginLearned)
                == [["peer": f.deskKeys.profile.deviceID.hex, "origin": colleague.device.hex, "access": "viewer"]])
    }

    /// A held project of the owner's is never made view-only by someone else's offer, whatever it says.
    @Test func aColleaguesViewerOfferOfAProjectTheLaptopHoldsAsTheOwnersChangesNothing() throws {
        let f = try F()
        let stranger = try StrangerDevice(pairedWithLaptopOf: f)
        let brief = try F.project(f.desk, "Brief")
        _ = try F.document(f.desk, in: brief, "Draft", ["first"])
        try f.syncLaptop()
        // (It cannot even grant the laptop a compartment named as the project's: the laptop's own has the name.)
        stranger.answerer.offer(brief.id, access: .viewer, privileged: false, named: "Brief")
        let report = try stranger.syncLaptop()
        #expect(report.projects.map(\.refused) == [["notShared"]], "\(report)")
        #expect(try !Self.held(f.laptop, brief.id).isViewOnly)
        #expect(try Self.origin(f.laptop, brief.id) == nil)
        #expect(F.details(f.laptop, .writingProjectViewOnly, "view-only").isEmpty)
    }

    /// Someone else's device that says it holds the project from another device (it passes it on)
    /// is refused by the receiver too: `notOwner`, recorded with the origin it named; nothing made.
    @Test func anOfferOfSomeoneElsesProjectPassedOnIsRefusedByTheReceiver() throws {
        let f = try F()
        let stranger = try StrangerDevice(pairedWithLaptopOf: f)
        let project = try ProjectID.random()
        try stranger.grant(project, role: .viewer)
        stranger.answerer.offer(project, access: .viewer, origin: f.deskKeys.profile.deviceID, privileged: false, named: "Brief")
        try stranger.answerer.plant(in: project)
        let report = try stranger.syncLaptop()
        #expect(report.projects.map(\.refused) == [["notOwner"]], "\(report)")
        #expect(try !F.hasProject(f.laptop, project))
        #expect(stranger.answerer.pulled.isEmpty)
        let refused = try #require(Self.entries(f.laptop, .syncExchangeRefused).last)
        #expect(refused["reason"] == "notOwner" && refused["origin"] == f.deskKeys.profile.deviceID.hex && refused["project"] == project.hex,
                "\(refused)")
    }

    // MARK: A colleague's project, on the owner's devices

    /// A colleague shares its project with the owner's desk as viewer: the laptop, taking it from
    /// the desk, holds it view-only too (the role the colleague gave, and the colleague as origin),
    /// and the desk takes no record of the laptop's for it (no back door to write): refused
    /// (`accessEnded`), recorded, the desk's words unchanged.
    @Test func aViewersOtherOwnDeviceIsViewOnlyTooAndNoBackDoorToWrite() throws {
        let f = try F()
        let colleague = try Colleague(f)
        let memo = try colleague.vault.unlocked.createWritingProject(named: "Memo", register: .general, kind: .document)
        let draft = try F.document(colleague.vault, in: memo, "Draft", ["the colleague's words"])
        try F.share(memo, of: colleague.vault, with: f.desk, role: .viewer)
        #expect(try colleague.answer(f.desk, f.deskKeys).received == 1)
        #expect(try Self.held(f.desk, memo.id).isViewOnly)

        try f.syncLaptop()
        let laptops = try Self.held(f.laptop, memo.id)
        #expect(laptops.isViewOnly)
        let origin = try #require(try Self.origin(f.laptop, memo.id))
        #expect(origin.device == colleague.device && origin.access == .viewer)
        #expect(throws: WritingError(.viewOnly, "")) { try F.edit(f.laptop, laptops, draft, block: 0, to: "the laptop's") }
        let added = try #require(Self.entries(f.laptop, .syncProjectAdded).last)
        #expect(added["access"] == "viewer" && added["origin"] == colleague.device.hex, "\(added)")
        // The laptop only ever offers it onward to its own devices: the colleague stays its owner.
        #expect(throws: SyncExchangeError(.notOwner, "")) {
            try SyncControl.requireOwner(of: laptops.compartment, sharingWith: colleague.device, role: .editor, in: f.laptop.unlocked)
        }

        // Software that ignores the mark writes anyway: the desk refuses the laptop's record.
        try f.laptop.unlocked.transaction { tx in try WritingStore(tx).setSyncedViewOnly(memo.id, false, from: "test") }
        try F.edit(f.laptop, laptops, draft, block: 0, to: "the laptop's words")
        let pushed = try f.syncLaptop()
        #expect(pushed.projects.first { $0.project == memo.id }?.refusedByPeer == ["accessEnded"], "\(pushed)")
        #expect(try F.texts(f.desk, memo.id, draft) == ["the colleague's words"])
        #expect(F.details(f.desk, .syncRecordRefused, "reason").contains("accessEnded"))
    }

    /// A4 (attack review s6): the colleague gives the owner's desk and laptop editor; the laptop
    /// types and pushes to the colleague; the colleague then makes the desk a viewer and writes on.
    /// The desk asking the colleague takes the laptop's record the colleague relays and the
    /// colleague's later words built on it (not `accessEnded`, not left waiting), and is view-only.
    @Test func recordsTheOriginRelaysOfAnOwnDeviceAreTakenWhileTheOwnerOnlyViews() throws {
        let f = try F()
        let colleague = try Colleague(f)
        let memo = try colleague.vault.unlocked.createWritingProject(named: "Memo", register: .general, kind: .document)
        let draft = try F.document(colleague.vault, in: memo, "Draft", ["first", "second"])
        try F.share(memo, of: colleague.vault, with: f.desk, role: .editor)
        try F.share(memo, of: colleague.vault, with: f.laptop, role: .editor)
        #expect(try colleague.answer(f.desk, f.deskKeys).received == 1)
        #expect(try colleague.answer(f.laptop, f.laptopKeys).received == 1)
        try F.edit(f.laptop, try Self.held(f.laptop, memo.id), draft, block: 0, to: "first, on the laptop")
        #expect(try colleague.answer(f.laptop, f.laptopKeys).sent == 1)
        try SyncControl.shared(memo.compartment, with: f.deskKeys.profile.deviceID, role: .viewer, in: colleague.vault.unlocked)
        try F.edit(colleague.vault, try colleague.project(memo.id), draft, block: 1, to: "second, the colleague's later words")

        let report = try colleague.answer(f.desk, f.deskKeys)
        let entry = try #require(report.projects.first { $0.project == memo.id })
        #expect(entry.refused == [] && entry.received == 2, "\(report)")
        #expect(try Self.held(f.desk, memo.id).isViewOnly)
        #expect(try F.texts(f.desk, memo.id, draft) == ["first, on the laptop", "second, the colleague's later words"])
        #expect(!F.details(f.desk, .syncRecordRefused, "reason").contains("accessEnded"))
        // The desk's own laptop pushing to the desk is still no back door.
        #expect(try Self.origin(f.desk, memo.id)?.access == .viewer)
    }

    /// A7 (attack review s6): a project not passed on is recorded at each projects request of the
    /// device it was once shared with, charged to that device's refusal budget: past the bound one
    /// summary, then nothing more, however often it asks.
    @Test func notPassingOnIsChargedToTheAskersRefusalBudget() throws {
        let f = try F()
        let colleague = try Colleague(f)
        let brief = try F.project(f.desk, "Brief")
        _ = try F.document(f.desk, in: brief, "Draft", ["first"])
        try F.share(brief, of: f.desk, with: colleague.vault, role: .editor)
        #expect(try colleague.syncWithDesk().received == 1)
        let theirs = try colleague.project(brief.id)
        try colleague.vault.unlocked.transaction { tx in
            try SyncExchangeStore(database: tx.database).setShare(of: theirs.compartment.id, with: f.laptopKeys.profile.deviceID, role: .viewer, at: 1)
        }
        let budget = SyncRefusalBudget(bound: 3, seconds: 60, clock: .forwardOnly { 1_000 })
        let responder = SyncResponder(vault: colleague.vault.unlocked, refusals: budget)
        for _ in 0..<10 { _ = try? responder.respond(to: SyncWire.projectsKind, body: [SyncWire.version], from: f.laptopKeys.profile) }
        let reasons = F.details(colleague.vault, .syncExchangeRefused, "reason")
        #expect(reasons == ["notOwner", "notOwner", "notOwner", "tooManyRefusals"], "\(reasons)")
        let first = try #require(Self.entries(colleague.vault, .syncExchangeRefused).first)
        #expect(first["project"] == brief.id.hex && first["origin"] == f.deskKeys.profile.deviceID.hex
                && first["peer"] == f.laptopKeys.profile.deviceID.hex, "\(first)")
    }

    // MARK: A repair that drops a colleague's project

    /// `repair --from DEVICE` that drops a project DEVICE does not offer, its own rows here damaged
    /// (rows13, "Left open"): a colleague's project held on the desk alone has rows in `sync_origins`
    /// and `sync_project_sources`. Left by the rebuild, they named no project, which is damage of the
    /// exchange as a whole: every exchange stopped until a plain `vaultctl repair`. Now they go with
    /// the project, in the rebuild's transaction, and the next exchanges run.
    @Test func aRepairDroppingAColleaguesDamagedProjectDropsItsProvenanceRowsAndTheNextSyncRuns() throws {
        let f = try F()
        let own = try F.project(f.desk, "Own")
        _ = try F.document(f.desk, in: own, "Plan", ["the owner's words"])
        try f.syncLaptop()
        let colleague = try Colleague(f)
        let memo = try colleague.vault.unlocked.createWritingProject(named: "Memo", register: .general, kind: .document)
        _ = try F.document(colleague.vault, in: memo, "Draft", ["the colleague's words"])
        try F.share(memo, of: colleague.vault, with: f.desk, role: .editor)
        #expect(try colleague.answer(f.desk, f.deskKeys).received >= 1)
        #expect(try Self.origin(f.desk, memo.id)?.device == colleague.device)
        // Memo's own rows damaged on the desk (a project version past its CHECK); the laptop never held it.
        _ = try f.desk.unlocked.transaction { tx in try WritingStore(tx).createProjectSnapshot(of: memo.id, titled: "Kept") }
        try f.desk.tamper("PRAGMA ignore_check_constraints = ON; UPDATE writing_project_snapshots SET sequence = -2 WHERE project_id = X'\(memo.id.hex)'")

        let report = try Self.fromDeskToLaptop(f) { transport in try StoreRepair(vault: f.desk.unlocked, transport: transport, discardingLocal: true).run() }
        #expect(report.notOffered == [memo.id] && report.projects.map(\.project) == [own.id], "\(report)")
        let rows = try f.desk.unlocked.transaction { tx in
            try ["sync_origins", "sync_project_sources"].map { table in
                try tx.database.queryOne("SELECT count(*) AS rows FROM \(table) WHERE project_id = ?", [.blob(memo.id.bytes)])?.integer("rows")
            }
        }
        #expect(rows == [0, 0], "\(rows)")
        #expect(try f.desk.unlocked.transaction { tx in SyncExchangeHealth.damage(in: tx) } == SyncExchangeDamage())
        // The next exchange with the laptop runs (before, it failed: `damagedSyncState`, the table
        // sync_origins holds a row naming no project here).
        let laptop = try f.syncLaptop()
        #expect(laptop.projects.map(\.project) == [own.id] && laptop.projects.allSatisfy { $0.skipped == nil && $0.localOnly == nil }, "\(laptop)")
    }

    /// After `repair --from` dropped a colleague's damaged project, the colleague offers it again
    /// (rows14's leftover, session 14). Its compartments stayed (the colleague's grant `project ID`
    /// and this vault's own `project ID (synced)`, which holds the keys): making the project again from
    /// the offer found both names taken, and `compartmentExists` failed the WHOLE exchange, every
    /// project with it, at every run. Now the project is made again in its own compartment, as `repair
    /// --from` restores a project in the compartment it had (§19.9, "Who makes a project"), and the
    /// colleague's words are back.
    @Test func aColleaguesProjectARepairDroppedIsMadeAgainInItsOwnCompartmentAtTheNextOffer() throws {
        let f = try F()
        let own = try F.project(f.desk, "Own")
        _ = try F.document(f.desk, in: own, "Plan", ["the owner's words"])
        try f.syncLaptop()
        let colleague = try Colleague(f)
        let memo = try colleague.vault.unlocked.createWritingProject(named: "Memo", register: .general, kind: .document)
        _ = try F.document(colleague.vault, in: memo, "Draft", ["the colleague's words"])
        try F.share(memo, of: colleague.vault, with: f.desk, role: .editor)
        #expect(try colleague.answer(f.desk, f.deskKeys).received >= 1)
        let compartment = try Self.held(f.desk, memo.id).compartment
        _ = try f.desk.unlocked.transaction { tx in try WritingStore(tx).createProjectSnapshot(of: memo.id, titled: "Kept") }
        try f.desk.tamper("PRAGMA ignore_check_constraints = ON; UPDATE writing_project_snapshots SET sequence = -2 WHERE project_id = X'\(memo.id.hex)'")
        let repaired = try Self.fromDeskToLaptop(f) { transport in try StoreRepair(vault: f.desk.unlocked, transport: transport, discardingLocal: true).run() }
        try #require(repaired.notOffered == [memo.id], "\(repaired)")

        let again = try colleague.answer(f.desk, f.deskKeys)
        #expect(again.projects.map(\.project) == [memo.id] && again.projects.allSatisfy { $0.skipped == nil && $0.access != "none" }, "\(again)")
        let made = try Self.held(f.desk, memo.id)
        #expect(made.compartment.id == compartment.id && made.compartment.name == "project \(memo.id.hex) (synced)", "\(made.compartment.name)")
        let text = try F.store(f.desk, made) { store in try store.nodes(in: memo.id).map(\.title) }
        #expect(text == ["Draft"], "\(text)")
        #expect(try Self.origin(f.desk, memo.id)?.device == colleague.device)
    }

    /// An offer whose project cannot be made here because both names of its compartment are taken by
    /// what is no compartment of this vault's own (two share grants named `project ID` and `project ID
    /// (synced)`): that offer is refused and recorded, never the exchange with the other projects
    /// (before, `compartmentExists` failed the whole run).
    @Test func anOfferWhoseCompartmentNamesAreBothTakenIsRefusedAloneAndTheOtherProjectsSync() throws {
        let f = try F()
        let colleague = try Colleague(f)
        let memo = try colleague.vault.unlocked.createWritingProject(named: "Memo", register: .general, kind: .document)
        _ = try F.document(colleague.vault, in: memo, "Draft", ["the colleague's words"])
        let other = try colleague.vault.unlocked.createWritingProject(named: "Other", register: .general, kind: .document)
        _ = try F.document(colleague.vault, in: other, "Page", ["more words"])
        try F.share(memo, of: colleague.vault, with: f.desk, role: .editor)
        try F.share(other, of: colleague.vault, with: f.desk, role: .editor)
        // A second grant of the colleague's, named as this vault would name the project's own compartment.
        let decoy = try colleague.vault.unlocked.createCompartment(named: "project \(memo.id.hex) (synced)", register: .general)
        let deskProfile = try f.desk.unlocked.deviceKeys().profile
        _ = try f.desk.unlocked.acceptShareGrant(try colleague.vault.unlocked.makeShareGrant(of: decoy, for: deskProfile, role: .viewer))

        let report = try colleague.answer(f.desk, f.deskKeys)
        let refused = try #require(report.projects.first { $0.project == memo.id }, "\(report)")
        #expect(refused.access == "none" && refused.refused == ["compartmentTaken"], "\(refused)")
        #expect(report.projects.first { $0.project == other.id }?.received == 1, "\(report)")
        #expect(try F.hasProject(f.desk, other.id) && !F.hasProject(f.desk, memo.id))
        let entry = try #require(Self.entries(f.desk, .syncExchangeRefused).last { $0["project"] == memo.id.hex })
        #expect(entry["reason"] == "compartmentTaken", "\(entry)")
    }
}
