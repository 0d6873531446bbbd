import Appliance
import CryptoVault
import Sync
import Testing
import TestSupport
import Writing

/// A viewer's changes are refused and audited on both sides (issue 17, SECURITY.md §19.9): the owner
/// records the refusal (`sync.exchange-refused`), and the device whose push was refused learns it and
/// records it too (`sync.push-refused`: peer, project, reason, how many records; never their words),
/// while the exchange goes on with its other projects.
@Suite struct ViewerRefusalTests {
    typealias F = SyncExchangeFixture

    /// The channel to the desk, running `beforePush` once, just before the first push goes.
    final class DemotingTransport: SyncTransport {
        let inner: ChannelSyncTransport
        var beforePush: (() throws -> Void)?
        var peer: DeviceProfile { inner.peer }

        init(_ inner: ChannelSyncTransport, beforePush: @escaping () throws -> Void) {
            self.inner = inner
            self.beforePush = beforePush
        }

        func request(_ kind: String, body: SyncOutgoing) throws -> [UInt8] {
            if kind == SyncWire.pushKind, let run = beforePush {
                beforePush = nil
                try run()
            }
            return try inner.request(kind, body: body)
        }
    }

    @Test func anEditorMadeAViewerWhileItSyncsHasItsPushRefusedAndRecordedOnBothSidesAndTheOtherProjectsGoOn() throws {
        let f = try F(deskTrusts: .other, laptopTrusts: .other)
        let brief = try F.project(f.desk, "Brief"), memo = try F.project(f.desk, "Memo")
        let briefDocument = try F.document(f.desk, in: brief, "Draft", ["first", "second"])
        let memoDocument = try F.document(f.desk, in: memo, "Note", ["one"])
        for project in [brief, memo] {
            try F.share(project, of: f.desk, with: f.laptop, role: .editor)
        }
        #expect(try f.syncLaptop().received == 2)
        let laptopBrief = try f.laptop.unlocked.transaction { tx in try WritingStore(tx).project(brief.id) }
        let laptopMemo = try f.laptop.unlocked.transaction { tx in try WritingStore(tx).project(memo.id) }
        try F.edit(f.laptop, laptopBrief, briefDocument, block: 1, to: "second, secret words of the laptop")
        try F.edit(f.laptop, laptopMemo, memoDocument, block: 0, to: "one, from the laptop")

        // The owner makes the laptop a viewer of the brief after its offer said editor, before its push.
        let desk = f.desk.unlocked, laptopID = f.laptopKeys.profile.deviceID
        let transport = DemotingTransport(try f.transport()) {
            try SyncControl.shared(brief.compartment, with: laptopID, role: .viewer, in: desk)
        }
        let report = try SyncInitiator(vault: f.laptop.unlocked, transport: transport, coordinator: nil).run()

        let briefEntry = try #require(report.projects.first { $0.project == brief.id })
        let memoEntry = try #require(report.projects.first { $0.project == memo.id })
        #expect(briefEntry.sent == 0 && briefEntry.refusedByPeer == ["viewerCannotWrite"], "\(report)")
        #expect(memoEntry.sent == 1 && memoEntry.refusedByPeer.isEmpty, "the other project still syncs: \(report)")
        #expect(try F.texts(f.desk, brief.id, briefDocument) == ["first", "second"])
        #expect(try F.texts(f.desk, memo.id, memoDocument) == ["one, from the laptop"])
        // The owner's side.
        #expect(F.details(f.desk, .syncExchangeRefused, "reason") == ["viewerCannotWrite"])
        // The viewer's side: one entry naming the peer, the project, the reason and the count.
        let entries = f.laptop.recording.events.withLock { $0.filter { $0.action == .syncPushRefused } }
        try #require(entries.count == 1, "\(entries)")
        let details = Dictionary(uniqueKeysWithValues: entries[0].details.map { ($0.name, $0.value) })
        #expect(details == ["peer": f.deskKeys.profile.deviceID.hex, "project": brief.id.hex, "reason": "viewerCannotWrite", "records": "1"])
        #expect(!entries[0].details.contains { $0.value.contains("secret") }, "no words of the refused records")
        #expect(!f.laptop.recording.actions.contains("sync.exchange-refused"), "the laptop refused nothing itself")
        // Its words stay with it.
        #expect(try F.texts(f.laptop, brief.id, briefDocument) == ["first", "second, secret words of the laptop"])
    }
}
