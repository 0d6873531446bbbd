import CryptoVault
import Testing
import Sync
import Writing

/// When background sync runs (SECURITY.md §19.9), driven by hand: a device seen is synced at once,
/// a failure is retried after a delay that doubles, is jittered and is bounded, a success forgets
/// the failures, a pause waits the longest retry, a device no longer own forgets the retry, and a device seen again right after a success is not
/// synced again (so two daemons seeing each other connect do not sync back and forth for ever).
@Suite struct SyncScheduleTests {
    let device = try! DeviceID(bytes: Array(repeating: 7, count: 16))
    let policy = SyncSchedule.Policy(firstRetrySeconds: 5, maximumRetrySeconds: 60, quietSeconds: 30)

    @Test func failuresAreRetriedAfterDoublingJitteredBoundedDelaysAndASuccessResetsThem() {
        var schedule = SyncSchedule(policy: policy)
        var now = 100.0
        let first = schedule.seen(device, at: now), again = schedule.seen(device, at: now)
        #expect(first)
        #expect(!again, "a sync is running")
        var delays: [Double] = []
        for failure in 1...8 {
            // The upper end of the jitter each time: the full delay.
            let delay = schedule.finished(device, at: now, succeeded: false, random: 1)!
            delays.append(delay)
            #expect(schedule.failures(of: device) == failure)
            let sighted = schedule.seen(device, at: now + 1), early = schedule.due(at: now + delay - 0.01)
            #expect(!sighted, "a retry is set: a sighting does not jump it")
            #expect(early.isEmpty)
            now += delay
            let due = schedule.due(at: now)
            #expect(due == [device])
        }
        #expect(delays == [5, 10, 20, 40, 60, 60, 60, 60])
        schedule.finished(device, at: now, succeeded: true, random: 0.3)
        #expect(schedule.failures(of: device) == 0 && schedule.retry(of: device) == nil)
        let soon = schedule.seen(device, at: now + 29), later = schedule.seen(device, at: now + 31)
        #expect(!soon, "synced just now")
        #expect(later)
        let restarted = schedule.finished(device, at: now + 31, succeeded: false, random: 1)
        #expect(restarted == 5, "the delays start again")
    }

    /// Review 17 s8, F9: two idle daemons in sight of each other (announcing every 5 s) do not sync
    /// every minute; a device back in sight after an absence syncs at once.
    @Test func aDeviceThatStaysInSightIsSyncedAgainOnlyAfterTheQuietTimeAndOneBackFromAnAbsenceAtOnce() {
        var schedule = SyncSchedule(policy: SyncSchedule.Policy())
        #expect(SyncSchedule.Policy().quietSeconds == 900 && SyncSchedule.Policy().absentSeconds == 120)
        var started = 0
        var now = 0.0
        // An hour in sight, seen every 5 s, each sync succeeding at once.
        while now < 3_600 {
            if schedule.seen(device, at: now) {
                started += 1
                schedule.finished(device, at: now, succeeded: true, random: 0)
            }
            now += 5
        }
        #expect(started == 4, "\(started) syncs in an hour of idle sightings (every 15 minutes)")
        // Synced, in sight for 5 minutes, then out of sight for 3: back, it syncs at once, within the quiet time.
        var other = SyncSchedule(policy: SyncSchedule.Policy())
        let first = other.seen(device, at: 0)
        other.finished(device, at: 0, succeeded: true, random: 0)
        var inSight: [Bool] = []
        for time in stride(from: 5.0, through: 300, by: 5) { inSight.append(other.seen(device, at: time)) }
        let back = other.seen(device, at: 300 + 180)
        #expect(first && !inSight.contains(true))
        #expect(back, "a device back from 3 minutes out of sight waits for nothing")
    }

    /// Review 17 s10, N-s10-6: a sync of a save's projects alone (`finished(whole: false)`) is no
    /// sync of everything: the quiet time starts only after a whole one, so a sighting after a
    /// save's sync still syncs every project, and then the quiet time holds.
    @Test func aSyncOfTheSavedProjectsAloneDoesNotStartTheQuietTime() {
        var schedule = SyncSchedule(policy: SyncSchedule.Policy())
        let saved = schedule.saved(device, at: 0)
        schedule.finished(device, at: 1, succeeded: true, random: 0, whole: false)
        #expect(saved && schedule.failures(of: device) == 0 && schedule.retry(of: device) == nil)
        let seenAfterTheSave = schedule.seen(device, at: 5)
        #expect(seenAfterTheSave, "the save's sync synced its projects only: a sighting syncs the rest")
        schedule.finished(device, at: 6, succeeded: true, random: 0, whole: true)
        let seenAfterAWholeSync = schedule.seen(device, at: 10)
        #expect(!seenAfterAWholeSync, "a whole sync starts the quiet time")
    }

    @Test func theJitterPicksADelayInTheUpperHalf() {
        for failures in 1...10 {
            let full = SyncSchedule.delay(afterFailures: failures, policy: policy, random: 1)
            #expect(SyncSchedule.delay(afterFailures: failures, policy: policy, random: 0) == full / 2)
            let some = SyncSchedule.delay(afterFailures: failures, policy: policy, random: 0.37)
            #expect(some > full / 2 && some < full)
        }
    }

    @Test func aDeviceNoLongerOwnForgetsTheRetry() {
        var schedule = SyncSchedule(policy: policy)
        let first = schedule.seen(device, at: 0)
        #expect(first)
        _ = schedule.finished(device, at: 0, succeeded: false, random: 1)
        schedule.stopped(device)
        #expect(schedule.retry(of: device) == nil)
        let due = schedule.due(at: 1_000)
        #expect(due.isEmpty)
        // Seen again (own again), it syncs.
        let resumed = schedule.seen(device, at: 1_000)
        #expect(resumed)
    }

    /// Review 17, F16: a `paused` answer sets the longest retry, so sightings (every 5 s with
    /// --announce) and saves start nothing before it.
    @Test func aPauseWaitsTheLongestRetryBeforeTryingAgain() {
        var schedule = SyncSchedule(policy: policy)
        let first = schedule.seen(device, at: 0)
        #expect(first)
        let delay = schedule.paused(device, at: 0)
        #expect(delay == policy.maximumRetrySeconds)
        #expect(schedule.retry(of: device) == policy.maximumRetrySeconds)
        let started = (1...20).filter { schedule.seen(device, at: Double($0) * 5) }
        #expect(started.isEmpty)
        let saved = schedule.saved(device, at: 100)
        #expect(!saved)
        let early = schedule.due(at: policy.maximumRetrySeconds - 1)
        #expect(early.isEmpty)
        let due = schedule.due(at: policy.maximumRetrySeconds)
        #expect(due == [device])
        // The pause counts as no failure: after it, a failure starts again from the first retry.
        #expect(schedule.failures(of: device) == 0)
    }

    /// Review 17 s9, N-s9-3: a resume here ends a pause's wait at once; a failure's backoff stays.
    @Test func aResumeHereEndsAPausesWaitButNotAFailuresBackoff() {
        var schedule = SyncSchedule(policy: policy)
        let failing = try! DeviceID(bytes: Array(repeating: 9, count: 16))
        let seen = schedule.seen(device, at: 100), seenFailing = schedule.seen(failing, at: 100)
        #expect(seen && seenFailing)
        schedule.paused(device, at: 101)
        let backoff = schedule.finished(failing, at: 101, succeeded: false, random: 1)!
        let savedDuringPause = schedule.saved(device, at: 102)
        #expect(!savedDuringPause, "a pause's wait holds saves back")
        schedule.resumed(at: 103)
        let due = schedule.due(at: 103)
        #expect(due == [device], "only the paused device is due at once")
        #expect(schedule.retry(of: failing) == 101 + backoff)
        // Resumed once: a later resume does not make it due again.
        schedule.finished(device, at: 104, succeeded: true, random: 0)
        schedule.resumed(at: 105)
        let dueAgain = schedule.due(at: 105)
        #expect(dueAgain.isEmpty)
    }

    @Test func savesDuringASyncAreOneMoreSyncAndAFailingDeviceWaitsForItsRetry() {
        var schedule = SyncSchedule(policy: policy)
        let first = schedule.saved(device, at: 0), during = schedule.saved(device, at: 0.1), alsoDuring = schedule.saved(device, at: 0.2)
        #expect(first)
        #expect(!during && !alsoDuring, "a sync is running: the saves wait for it")
        schedule.finished(device, at: 1, succeeded: true, random: 0)
        let again = schedule.again(device), twice = schedule.again(device)
        #expect(again, "the saves made during the sync are one more sync")
        #expect(!twice, "one more, not one per save")
        schedule.finished(device, at: 2, succeeded: true, random: 0)
        let none = schedule.again(device)
        #expect(!none, "no save came during the second sync")
        // Right after a success a save still syncs: the quiet time is for sightings.
        let soon = schedule.saved(device, at: 2.5)
        #expect(soon)
        // A failure: saves wait for the retry (which carries them), and do not make it go again.
        let saving = schedule.saved(device, at: 2.6)
        #expect(!saving)
        let delay = schedule.finished(device, at: 3, succeeded: false, random: 1)
        #expect(delay == 5)
        let afterFailure = schedule.again(device), inBackoff = schedule.saved(device, at: 4)
        #expect(!afterFailure && !inBackoff)
        let due = schedule.due(at: 8)
        #expect(due == [device], "the retry carries the save")
    }
}
