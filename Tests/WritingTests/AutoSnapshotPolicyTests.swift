import CryptoVault
import Synchronization
import Testing
@testable import Writing

/// A wall clock the test moves by hand, in seconds with their fraction.
final class ManualClock: Sendable {
    private let current = Mutex<Double>(1_800_000_000)

    var vaultClock: VaultClock { VaultClock.fractional { self.current.withLock { $0 } } }
    func advance(_ seconds: Double) { current.withLock { $0 += seconds } }
}

@Suite struct AutoSnapshotPolicyTests {
    @Test func threeMinutesOfSteadyEditingMakeASnapshotDueOnTheEditThatReachesThem() {
        let clock = ManualClock()
        var policy = AutoSnapshotPolicy(clock: clock.vaultClock)
        #expect(policy.recordEdit(inserted: 1, deleted: 0).isEmpty)
        // 35 more edits 5 s apart: 175 s of active time, not yet three minutes.
        for _ in 0..<35 {
            clock.advance(5)
            #expect(policy.recordEdit(inserted: 1, deleted: 0).isEmpty)
        }
        #expect(policy.activeTime == .seconds(175))
        clock.advance(5)
        #expect(policy.recordEdit(inserted: 1, deleted: 0) == [.activeEditing])
        policy.snapshotTaken()
        #expect(policy.activeTime == .zero)
        #expect(policy.charactersChanged == 0)
        // The run of edits goes on across the snapshot: the next gap counts.
        clock.advance(5)
        #expect(policy.recordEdit(inserted: 1, deleted: 0).isEmpty)
        #expect(policy.activeTime == .seconds(5))
    }

    @Test func aPauseLongerThanTheIdleGapAddsNoActiveTime() {
        let clock = ManualClock()
        var policy = AutoSnapshotPolicy(clock: clock.vaultClock)
        _ = policy.recordEdit(inserted: 1, deleted: 0)
        clock.advance(30)
        _ = policy.recordEdit(inserted: 1, deleted: 0)
        #expect(policy.activeTime == .seconds(30))
        clock.advance(30.001)
        _ = policy.recordEdit(inserted: 1, deleted: 0)
        #expect(policy.activeTime == .seconds(30))
        clock.advance(8 * 3600)
        #expect(policy.recordEdit(inserted: 1, deleted: 0).isEmpty)
        #expect(policy.activeTime == .seconds(30))
    }

    @Test func fiveHundredCharactersOfChangeCountInsertionsAndDeletions() {
        let clock = ManualClock()
        var policy = AutoSnapshotPolicy(clock: clock.vaultClock)
        #expect(policy.recordEdit(inserted: 300, deleted: 0).isEmpty)
        #expect(policy.recordEdit(inserted: 100, deleted: 99).isEmpty)
        #expect(policy.charactersChanged == 499)
        #expect(policy.recordEdit(inserted: 0, deleted: 1) == [.characterCount])
        policy.snapshotTaken()
        #expect(policy.recordEdit(inserted: 499, deleted: 0).isEmpty)
    }

    @Test func bothTriggersCanFireOnTheSameEdit() {
        let clock = ManualClock()
        var policy = AutoSnapshotPolicy(clock: clock.vaultClock)
        _ = policy.recordEdit(inserted: 10, deleted: 0)
        for _ in 0..<6 {
            clock.advance(29)
            _ = policy.recordEdit(inserted: 1, deleted: 0)
        }
        #expect(policy.activeTime == .seconds(174))
        clock.advance(6)
        #expect(policy.recordEdit(inserted: 500, deleted: 0) == [.activeEditing, .characterCount])
    }

    @Test func leavingAChangedDocumentMakesASnapshotDueAndAnUnchangedOneDoesNot() {
        let clock = ManualClock()
        var policy = AutoSnapshotPolicy(clock: clock.vaultClock)
        #expect(policy.recordDocumentSwitch().isEmpty)
        _ = policy.recordEdit(inserted: 1, deleted: 0)
        clock.advance(10)
        _ = policy.recordEdit(inserted: 1, deleted: 0)
        #expect(policy.recordDocumentSwitch() == [.documentSwitch])
        #expect(policy.activeTime == .zero)
        #expect(policy.charactersChanged == 0)
        // The first edit in the next document starts its run: the time since the last edit in the
        // other document is not active time here.
        clock.advance(10)
        _ = policy.recordEdit(inserted: 1, deleted: 0)
        #expect(policy.activeTime == .zero)
        policy.snapshotTaken()
        #expect(policy.recordDocumentSwitch().isEmpty)
    }

    /// An injected clock that goes backwards must not add (or subtract) active time.
    @Test func timeGoingBackwardsCountsAsNoTime() {
        let clock = ManualClock()
        clock.advance(100)
        var policy = AutoSnapshotPolicy(clock: clock.vaultClock)
        _ = policy.recordEdit(inserted: 1, deleted: 0)
        clock.advance(-50)
        _ = policy.recordEdit(inserted: 1, deleted: 0)
        #expect(policy.activeTime == .zero)
    }
}
