import CryptoVault
import Testing
import TestSupport

/// MonotonicDeadline, the one deadline type (issue 12's one clock): read on the VaultClock it was made
/// on, so a test moves every deadline by moving that clock's monotonic reading.
@Suite struct MonotonicDeadlineTests {
    @Test("a deadline passes when its clock reaches it, not before; remaining counts down to 0")
    func passesOnItsClock() {
        let hand = MonotonicHand()
        let deadline = MonotonicDeadline.after(2.5, on: hand.clock)
        #expect(!deadline.hasPassed && deadline.remaining == 2.5)
        hand.advance(2.4)
        #expect(!deadline.hasPassed && abs(deadline.remaining - 0.1) < 1e-9)
        hand.advance(0.1)
        #expect(deadline.hasPassed && deadline.remaining == 0)
        hand.advance(100)
        #expect(deadline.remaining == 0 && deadline.remainingMilliseconds() == 0)
    }

    @Test("a Duration counts with its fraction; a negative one is now")
    func durations() {
        let hand = MonotonicHand()
        #expect(MonotonicDeadline.after(.milliseconds(1500), on: hand.clock).remaining == 1.5)
        #expect(MonotonicDeadline.after(-3, on: hand.clock).hasPassed)
    }

    @Test("poll's milliseconds round up (a wait never ends just before the deadline) and are capped")
    func milliseconds() {
        let hand = MonotonicHand()
        #expect(MonotonicDeadline.after(0.0001, on: hand.clock).remainingMilliseconds() == 1)
        #expect(MonotonicDeadline.after(2, on: hand.clock).remainingMilliseconds() == 2000)
        #expect(MonotonicDeadline.after(3600, on: hand.clock).remainingMilliseconds() == 60_000)
        #expect(MonotonicDeadline.after(3600, on: hand.clock).remainingMilliseconds(cappedAt: .max) == 3_600_000)
    }

    @Test("the earlier deadline is the smaller: min() bounds an idle wait by the whole exchange's end")
    func ordering() {
        let hand = MonotonicHand()
        let whole = MonotonicDeadline.after(10, on: hand.clock), idle = MonotonicDeadline.after(3, on: hand.clock)
        #expect(idle < whole && min(whole, idle) == idle)
        hand.advance(8)
        #expect(min(whole, .after(3, on: hand.clock)) == whole)
    }
}
