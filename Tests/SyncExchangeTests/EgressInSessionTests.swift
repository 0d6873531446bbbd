import CryptoVault
import Sync
import Testing
import TestSupport
import Writing

/// Review 17 F17-9: a chart's records were read in a session that ended before the funnel decided
/// to release them, so the egress decision said `session: null` and an auditor could not match the
/// release to the session it was read in. Now each device releases a privileged project's records
/// inside that session: the decision names it, between its start and its end in the log, whether
/// the device pushes them (the asker) or answers a pull (the answerer).
@Suite struct EgressInSessionTests {
    typealias F = SyncExchangeFixture

    /// For each egress decision of `compartment` on `vault`: nil when it names no session (a
    /// project's offer, decided outside any one project's session by design, §19.9 "Egress"), else
    /// whether the session it names started before it and ended after it.
    static func decisionsInTheirSessions(_ vault: TestVault, _ compartment: CompartmentID) -> [Bool?] {
        vault.recording.events.withLock { events in
            events.enumerated().filter { $0.element.action == .egressDecision && $0.element.compartmentID == compartment }.map { index, decision in
                guard let session = decision.details.first(where: { $0.name == "session" })?.value else { return nil }
                let named = { (event: VaultEvent) in event.subjectID.map(ByteEncoding.hex) == session }
                guard let start = events.firstIndex(where: { $0.action == .sessionStart && named($0) }),
                      let end = events.firstIndex(where: { $0.action == .sessionEnd && named($0) }) else { return false }
                return start < index && index < end
            }
        }
    }

    /// The records' release names its session and lies within it; no decision names a session it is outside of.
    static func expectRecordsReleasedInSession(_ decisions: [Bool?], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(decisions.contains(true), "no decision was made in the session the records were read in: \(decisions)", sourceLocation: sourceLocation)
        #expect(!decisions.contains(false), "a decision names a session it is outside of: \(decisions)", sourceLocation: sourceLocation)
    }

    @Test func aChartsRecordsLeaveInTheSessionTheyWereReadInOnBothSides() throws {
        let f = try F()
        let chart = try F.project(f.laptop, "Patient X", register: .healthcare)
        #expect(chart.isPrivileged)
        let visit = try F.document(f.laptop, in: chart, "Visit", ["seen on the laptop"])
        // The laptop pushes the chart's records to the desk.
        _ = try f.syncLaptop()
        Self.expectRecordsReleasedInSession(Self.decisionsInTheirSessions(f.laptop, chart.compartment.id))

        // The desk's edit reaches the laptop as the desk's answer to its pull.
        let onDesk = try f.desk.unlocked.transaction { tx in try WritingStore(tx).project(chart.id) }
        try F.edit(f.desk, onDesk, visit, block: 0, to: "seen on the desk")
        _ = try f.syncLaptop()
        #expect(try F.texts(f.laptop, chart.id, visit) == ["seen on the desk"])
        Self.expectRecordsReleasedInSession(Self.decisionsInTheirSessions(f.desk, onDesk.compartment.id))
    }
}
