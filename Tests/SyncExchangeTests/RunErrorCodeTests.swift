import PeerChannel
import Sync
import Testing

/// What `sync status` ("last try failed: …") and the run's `sync.exchange` entry name a failed run by
/// (review 17 s13, LOW 3): a channel error (the peer's service failed) by its code. Before, the owner
/// read a Swift type name, "CodedError<PeerChannelErrorCode>".
@Suite struct RunErrorCodeTests {
    @Test func aChannelErrorIsNamedByItsCodeNeverByItsType() {
        #expect(SyncInitiator.code(of: PeerChannelError(.serviceFailed, "the service for 'sync.projects' failed")) == "serviceFailed")
        #expect(SyncInitiator.code(of: SyncExchangeError(.paused, "paused here")) == "paused")
    }
}
