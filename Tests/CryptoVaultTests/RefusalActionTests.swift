import CryptoVault
import Foundation
import Testing
import TestSupport

/// `VaultTransaction.recordRefusal` leaves an entry that stands though its transaction rolls back,
/// so it takes only a `RefusalAction` (an explicit list), never an arbitrary event: else any caller
/// could leave an entry for a change that never happened.
@Suite struct RefusalActionTests {
    struct Refused: Error {}

    @Test func theAllowListHoldsOnlyRefusals() {
        // Every action on the list is a refusal by its name, and the list is exactly the one the
        // writing store uses; adding one is a change a reviewer sees here.
        #expect(RefusalAction.allCases.map(\.action.name) == ["writing.change-refused"])
        #expect(RefusalAction.allCases.allSatisfy { $0.action.name.hasSuffix("-refused") })
        // No value outside the cases can be made (attack review s6, A9: a second `static let` in
        // the struct this was compiled and was usable while missing from its hand-kept list).
        #expect(RefusalAction(rawValue: "bundle.put") == nil)
        #expect(RefusalAction(rawValue: "writing.change-refused") == .writingChange)
    }

    @Test func aRefusalStandsWhenItsTransactionRollsBackAndNothingElseDoes() throws {
        let fixture = try TestVault()
        let before = fixture.recording.actions.count
        #expect(throws: Refused.self) {
            try fixture.unlocked.transaction { tx in
                try tx.record(.compartmentCreate, details: [.init("name", "never made")])
                try tx.recordRefusal(.writingChange, subject: [UInt8](repeating: 7, count: 16), details: [.init("reason", "view-only")])
                throw Refused()
            }
        }
        let after = Array(fixture.recording.events.withLock { $0 }[before...])
        // The refusal is in the log with its reason; the entry recorded beside it rolled back.
        #expect(after.map(\.action.name) == ["writing.change-refused"])
        #expect(after.first?.details == [VaultEvent.Detail("reason", "view-only")])
        #expect(after.first?.subjectID == [UInt8](repeating: 7, count: 16))
    }
}
