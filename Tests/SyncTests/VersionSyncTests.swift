import CryptoVault
import PrivilegedSession
import Testing
import TestSupport
@testable import Sync
import Writing

/// Versions between real vaults (SECURITY.md §19.2 operations 0x06 to 0x08, §19.3, §19.5): a
/// snapshot, a branch, its decisions and the writing sessions made on one device show on the others
/// with the same ids, content and times, and decisions made at once on two devices settle alike.
@Suite struct VersionSyncTests {
    @Test func aSnapshotTakenOnOneDeviceIsOnTheOtherWithItsIdAndContentAndRestoresToTheSameBytes() throws {
        let fleet = try VersionFleet(devices: 2)
        let document = try fleet.document(on: 0, ["Presenting complaint", "History"])
        let titled = try fleet.store(0) { try $0.createSnapshot(of: document, in: fleet.project, titled: "Before the visit") }
        fleet.time.now += 60
        try fleet.edit(document, on: 0, paragraph: 1, to: "History: two weeks of cough")
        let automatic = try fleet.store(0) { try $0.createSnapshot(of: document, in: fleet.project) }
        try fleet.sync(from: 0, to: 1)

        let laptop = try fleet.snapshots(document, on: 0), desk = try fleet.snapshots(document, on: 1)
        #expect(desk.map(\.listed) == laptop.map(\.listed))
        #expect(desk.map(\.id) == [titled.id, automatic.id])
        #expect(desk[0].title == "Before the visit")
        for snapshot in laptop {
            let there = try fleet.store(0) { try $0.snapshotContentBytes(snapshot.id, of: document, in: fleet.project) }
            let here = try fleet.store(1) { try $0.snapshotContentBytes(snapshot.id, of: document, in: fleet.project) }
            #expect(here == there)
        }
        // Restored on the desk, the document is the titled version's blocks, byte for byte.
        try fleet.store(1) { _ = try $0.restore(document, in: fleet.project, to: titled.id) }
        let restored = try fleet.content(document, on: 1)
        #expect(SnapshotContent.encode(restored) == (try fleet.store(0) { try $0.snapshotContentBytes(titled.id, of: document, in: fleet.project) }))
        // And the restore travels back: the laptop's document and its snapshots are the desk's.
        try fleet.sync(from: 1, to: 0)
        #expect(try fleet.content(document, on: 0) == restored)
        #expect(try fleet.snapshots(document, on: 0).map(\.listed).sorted() == (try fleet.snapshots(document, on: 1).map(\.listed).sorted()))
    }

    @Test func nothingReceivedComesBackAsTheReceiversOwnChange() throws {
        let fleet = try VersionFleet(devices: 2)
        let document = try fleet.document(on: 0, ["Intake"])
        try fleet.store(0) { _ = try $0.createSnapshot(of: document, in: fleet.project, titled: "Intake done") }
        try fleet.sync(from: 0, to: 1)
        // The desk wrote the laptop's words, snapshot and session, none of them its own: its commit has nothing.
        #expect(try fleet.sync(1) { try $0.commitLocalChanges(in: fleet.project) } == nil)
        let events = try fleet.store(1) { try $0.editEvents(in: fleet.project) }
        let laptopDevice = try fleet.store(0) { try $0.auditDeviceID() }
        #expect(events.map(\.deviceID) == [laptopDevice])
    }

    @Test func aBranchAdoptedOnOneDeviceIsAdoptedOnTheOtherAndAdoptThenRevertRoundTrips() throws {
        let fleet = try VersionFleet(devices: 2)
        let document = try fleet.document(on: 0, ["Assessment", "Plan: rest"])
        let original = try fleet.content(document, on: 0)
        let base = try fleet.store(0) { try $0.createSnapshot(of: document, in: fleet.project) }
        var proposal = original.blocks
        proposal[1].text = "Plan: rest, fluids, review in a week"
        let branch = try fleet.store(0) {
            try $0.createBranch(of: document, in: fleet.project, base: base.id, content: DocumentContent(blocks: proposal), kind: .aiSuggestion,
                                provenance: "assistant: a fuller plan")
        }
        try fleet.sync(from: 0, to: 1)
        let received = try #require(try fleet.branches(document, on: 1).first)
        #expect(received == branch)
        #expect(try fleet.store(1) { try $0.branchContent(branch.id, of: document, in: fleet.project) } == DocumentContent(blocks: proposal))

        // Adopted on the desk: adopted on the laptop, with the desk's words and the same two snapshots.
        fleet.time.now += 30
        try fleet.store(1) { _ = try $0.adopt(branch.id, of: document, in: fleet.project) }
        try fleet.sync(from: 1, to: 0)
        let adoptedHere = try #require(try fleet.branches(document, on: 0).first), adoptedThere = try #require(try fleet.branches(document, on: 1).first)
        #expect(adoptedHere.state == .adopted)
        #expect(adoptedHere == adoptedThere)
        #expect(try fleet.content(document, on: 0) == DocumentContent(blocks: proposal))

        // Reverted on the laptop: both documents are the original again, byte for byte.
        fleet.time.now += 30
        try fleet.store(0) { _ = try $0.revert(branch.id, of: document, in: fleet.project) }
        try fleet.sync(from: 0, to: 1)
        for device in 0..<2 {
            #expect(try fleet.branches(document, on: device).first?.state == .reverted)
            #expect(SnapshotContent.encode(try fleet.content(document, on: device)) == SnapshotContent.encode(original))
        }
        #expect(try fleet.branches(document, on: 0) == (try fleet.branches(document, on: 1)))
        // The revert's version is on both, under one id.
        #expect(try fleet.snapshots(document, on: 0).filter { $0.origin == .revert }.map(\.id)
                == (try fleet.snapshots(document, on: 1).filter { $0.origin == .revert }.map(\.id)))
    }

    @Test func anAdoptionAndADiscardMadeAtOnceSettleAsTheAdoptionOnBothAndTheDiscardIsKept() throws {
        let fleet = try VersionFleet(devices: 2)
        let document = try fleet.document(on: 0, ["Facts", "Discussion"])
        let base = try fleet.store(0) { try $0.createSnapshot(of: document, in: fleet.project) }
        var proposal = try fleet.content(document, on: 0).blocks
        proposal[0].text = "Facts as the client told them"
        let branch = try fleet.store(0) {
            try $0.createBranch(of: document, in: fleet.project, base: base.id, content: DocumentContent(blocks: proposal), kind: .manual, provenance: "j.okafor")
        }
        try fleet.sync(from: 0, to: 1)
        // Neither device has seen the other's decision.
        try fleet.store(0) { _ = try $0.adopt(branch.id, of: document, in: fleet.project) }
        try fleet.store(1) { try $0.discard(branch.id, of: document, in: fleet.project) }
        try fleet.sync(from: 0, to: 1)
        try fleet.sync(from: 1, to: 0)
        for device in 0..<2 {
            #expect(try fleet.branches(document, on: device).first?.state == .adopted)
            #expect(try fleet.content(document, on: device) == DocumentContent(blocks: proposal))
        }
        let settled = try fleet.sync(0) { try $0.settledDecisions(of: branch.id, in: fleet.project) }
        #expect(settled == (try fleet.sync(1) { try $0.settledDecisions(of: branch.id, in: fleet.project) }))
        #expect(settled.decisions.map { "\($0.decision.decision) \($0.applied)" }.sorted() == ["adopt true", "discard false"])
        #expect(settled.decisions.first { $0.decision.decision == .discard }?.device == fleet.authors[1].device)
    }

    @Test func editEventsMergePerWritingSessionPerDevice() throws {
        let fleet = try VersionFleet(devices: 2)
        let document = try fleet.document(on: 0, ["one two"])
        try fleet.edit(document, on: 0, paragraph: 0, to: "one two three")
        try fleet.sync(from: 0, to: 1)
        fleet.time.now += 60
        try fleet.edit(document, on: 1, paragraph: 0, to: "one two three four five")
        fleet.time.now += 60
        try fleet.edit(document, on: 0, paragraph: 0, to: "zero one two three")
        try fleet.sync(from: 0, to: 1)
        try fleet.sync(from: 1, to: 0)
        let laptop = try fleet.store(0) { try $0.auditDeviceID() }, desk = try fleet.store(1) { try $0.auditDeviceID() }
        for device in 0..<2 {
            let events = try fleet.store(device) { try $0.editEvents(in: fleet.project) }
            // One session per device: the laptop's three writes (2 + 1 + 1 words), the desk's one (its 2 words).
            #expect(events.count == 2)
            let ofLaptop = try #require(events.first { $0.deviceID == laptop }), ofDesk = try #require(events.first { $0.deviceID == desk })
            #expect(ofLaptop.edits == 3)
            #expect(ofLaptop.documents == [DocumentEdit(document: document, wordDelta: 4)])
            #expect(ofDesk.edits == 1)
            #expect(ofDesk.documents == [DocumentEdit(document: document, wordDelta: 2)])
        }
        #expect(try fleet.store(0) { try $0.editEvents(in: fleet.project) } == (try fleet.store(1) { try $0.editEvents(in: fleet.project) }))
        // A session found over on its device is over on the other too.
        fleet.time.now += WritingSessionRule.gap
        try fleet.store(0) { _ = try $0.endWritingSessions(in: fleet.project) }
        try fleet.sync(from: 0, to: 1)
        #expect(try fleet.store(1) { try $0.editEvents(in: fleet.project) }.first { $0.deviceID == laptop }?.endedAt != nil)
    }

    @Test func threeDevicesRelayVersionsAndSettleDecisionsAlike() throws {
        let fleet = try VersionFleet(devices: 3)
        let document = try fleet.document(on: 0, ["Question presented", "Brief answer"])
        let base = try fleet.store(0) { try $0.createSnapshot(of: document, in: fleet.project, titled: "First draft") }
        var proposal = try fleet.content(document, on: 0).blocks
        proposal[1].text = "Brief answer: yes, within the limitation period"
        let branch = try fleet.store(0) {
            try $0.createBranch(of: document, in: fleet.project, base: base.id, content: DocumentContent(blocks: proposal), kind: .researchInsert,
                                provenance: "research: limitation")
        }
        try fleet.sync(from: 0, to: 1)
        try fleet.sync(from: 1, to: 2)  // the office machine has it from the desk, never from the laptop
        #expect(try fleet.snapshots(document, on: 2).map(\.listed) == (try fleet.snapshots(document, on: 0).map(\.listed)))
        #expect(try fleet.branches(document, on: 2) == (try fleet.branches(document, on: 0)))
        // Three decisions at once: two adoptions and a discard.
        try fleet.store(0) { _ = try $0.adopt(branch.id, of: document, in: fleet.project) }
        try fleet.store(1) { _ = try $0.adopt(branch.id, of: document, in: fleet.project) }
        try fleet.store(2) { try $0.discard(branch.id, of: document, in: fleet.project) }
        try fleet.syncAll()
        let settled = try fleet.sync(0) { try $0.settledDecisions(of: branch.id, in: fleet.project) }
        #expect(settled.state == .adopted)
        #expect(settled.decisions.filter(\.applied).count == 1)
        #expect(settled.decisions.count == 3)
        for device in 1..<3 {
            #expect(try fleet.sync(device) { try $0.settledDecisions(of: branch.id, in: fleet.project) } == settled)
            #expect(try fleet.branches(document, on: device) == (try fleet.branches(document, on: 0)))
            #expect(try fleet.content(document, on: device) == (try fleet.content(document, on: 0)))
            #expect(try fleet.snapshots(document, on: device).map(\.listed).sorted() == (try fleet.snapshots(document, on: 0).map(\.listed).sorted()))
        }
    }

    @Test func aSyncConflictsBranchIsDecidedOnEveryDeviceThatMetIt() throws {
        let fleet = try VersionFleet(devices: 2)
        let document = try fleet.document(on: 0, ["Plan"])
        try fleet.sync(from: 0, to: 1)
        // Both replaced the one word: a conflict (the lower-ranked side loses), kept as a branch on each device.
        try fleet.edit(document, on: 0, paragraph: 0, to: "Rest")
        try fleet.edit(document, on: 1, paragraph: 0, to: "Surgery")
        try fleet.sync(from: 0, to: 1)
        try fleet.sync(from: 1, to: 0)
        let conflicts = try (0..<2).map { device in try fleet.branches(document, on: device).filter { $0.kind == .syncConflict } }
        // One branch (the losing side's), the same on each device.
        #expect(conflicts.map(\.count) == [1, 1])
        #expect(conflicts[0].map(\.id) == conflicts[1].map(\.id))
        for branch in conflicts[1] { try fleet.store(1) { try $0.discard(branch.id, of: document, in: fleet.project) } }
        try fleet.sync(from: 1, to: 0)
        #expect(try fleet.branches(document, on: 0).filter { $0.kind == .syncConflict }.allSatisfy { $0.state == .discarded })
        // Each device made its own conflict branches: neither is sent to the other as a branch made.
        #expect(try fleet.branches(document, on: 0).filter { $0.kind == .syncConflict }.count == 1)
    }

    @Test func aPrivilegedProjectsVersionsTravelSealedAndAreWrittenOnlyInASession() throws {
        let laptop = try TestVault(modules: [WritingSchema.module, SyncSchema.module])
        let desk = try TestVault(modules: [WritingSchema.module, SyncSchema.module])
        let authors = try [SyncAuthor.random(), SyncAuthor.random()]
        let keys = Dictionary(uniqueKeysWithValues: authors.map { ($0.device, $0.key.publicKey) })
        let project = try laptop.unlocked.createWritingProject(named: "Patient A", register: .healthcare, kind: .document)
        let deskProject = try desk.unlocked.transaction { tx in
            try WritingStore(tx).addSyncedProject(project.id, named: "Patient A", register: .healthcare, kind: .document, privileged: true)
        }
        let sessions = try [
            PrivilegedProcessingSession.start(vault: laptop.unlocked, compartment: project.compartment, actor: "dr.osei", purpose: "notes"),
            PrivilegedProcessingSession.start(vault: desk.unlocked, compartment: deskProject.compartment, actor: "dr.osei", purpose: "notes"),
        ]
        let records = try laptop.unlocked.transaction { tx in
            let store = WritingStore(tx, access: .session(sessions[0]))
            let node = try store.addNode(.scene, titled: "Visit", in: project.id)
            try store.replaceDocumentContent(of: node.id, in: project.id, with: DocumentContent(blocks: [
                Block(id: try BlockID.random(), kind: .paragraph, text: "reports low mood, marker 5e1d7c"),
            ]))
            _ = try store.createSnapshot(of: node.id, in: project.id, titled: "Session one")
            let sync = VaultSync(store, author: authors[0], devices: keys)
            try sync.commitLocalChanges(in: project.id)
            return try sync.records(of: project.id, missingFrom: [:])
        }
        // Without a session of the desk's compartment nothing is read or written.
        #expect(throws: WritingError(.privilegedSessionRequired, "")) {
            try desk.unlocked.transaction { tx in try VaultSync(WritingStore(tx), author: authors[1], devices: keys).receive(records, for: project.id) }
        }
        let snapshots = try desk.unlocked.transaction { tx in
            let store = WritingStore(tx, access: .session(sessions[1]))
            let receipt = try VaultSync(store, author: authors[1], devices: keys).receive(records, for: project.id)
            #expect(receipt.refused == [])
            let document = try #require(try store.nodes(in: project.id).first)
            return try store.snapshots(of: document.id, in: project.id)
        }
        #expect(snapshots.map(\.title) == ["Session one"])
        for vault in [laptop, desk] {
            let bytes = vault.databaseFileBytes()
            #expect(!bytes.contains(subsequence: Array("5e1d7c".utf8)))
            #expect(!bytes.contains(subsequence: Array("Session one".utf8)))
        }
    }
}
