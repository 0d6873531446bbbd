import CryptoVault
@testable import Sync
import Testing
import Writing

/// What an exchange says of one project's own failure (review 17 s9 on 8934d66, F8's hint): data that
/// does not open is damage, which `vaultctl repair --from DEVICE` mends, and is said so; a refusal of
/// the writing store (a bound, an archived or view-only project, a record of another project) is not
/// damage, and is never sent to a repair that cannot change it. Before, every error of the writing
/// store but a privileged read without a session was "does not open … repair --from".
@Suite struct ProjectFailureTextTests {
    @Test(arguments: [WritingErrorCode.nestingTooDeep, .blockTooLarge, .documentTooLarge, .projectArchived, .viewOnly, .notInProject])
    func aRefusalOfTheWritingStoreIsSaidAsSuchAndNotSentToARepair(_ code: WritingErrorCode) throws {
        let project = try ProjectID.random()
        let error = SyncProjectDamage.error(project, WritingError(code, "what the store said"), on: "on desk")
        #expect(error.code == .writingRefused, "\(code): \(error)")
        #expect(error.message.contains("project \(project.hex): the writing store on desk refused") && error.message.contains("(\(code.rawValue))")
                && error.message.contains("not damage"), "\(error.message)")
        #expect(!error.message.contains("repair --from") && !error.message.contains("does not open"), "\(error.message)")
        #expect(!error.message.contains("what the store said"), "the store's message could name what was being written")
    }

    @Test func dataThatDoesNotOpenIsDamageWhichRepairFromMends() throws {
        let project = try ProjectID.random()
        for failure in [WritingError(.damagedRecord, "a block") as Error, CryptoVaultError(.authenticationFailure, "a sealed title")] {
            let error = SyncProjectDamage.error(project, failure, on: "on this device")
            #expect(error.code == .damagedProject, "\(failure): \(error)")
            #expect(error.message.contains("project \(project.hex) does not open on this device") && error.message.contains("'vaultctl repair --from DEVICE'"),
                    "\(error.message)")
        }
        // A privileged project read without a session is neither: the exchange opens a session for it.
        #expect(!SyncProjectDamage.isTheProjects(WritingError(.privilegedSessionRequired, "")))
    }
}
