import CryptoVault
import Testing
@testable import vaultctl

/// Exit codes of errors that no command reaches yet (sealed records have no command of their own):
/// the table in ExitCode.swift, read directly.
struct ExitCodeTests {
    @Test("sealed-record errors exit as their bundle counterparts: 64 for a bad location, 66 not found, 73 a place taken, 65 a record that fails to open (altered or moved)",
          arguments: [
              (CryptoVaultErrorCode.invalidRecordLocation, ExitCode.usage), (.recordNotFound, .noInput), (.recordLocationTaken, .cannotCreate),
              (.malformedRecord, .dataError), (.corruptRecord, .dataError), (.recordFromAnotherVault, .dataError),
              (.recordFromAnotherCompartment, .dataError), (.recordFromAnotherRow, .dataError), (.recordFromAnotherField, .dataError),
          ])
    func sealedRecordErrors(code: CryptoVaultErrorCode, expected: ExitCode) {
        #expect(ExitCode(for: CryptoVaultError(code, "a sealed record")) == expected)
        #expect(expected != .failure)
    }

    @Test("the bundle errors they mirror keep their codes")
    func bundleCounterparts() {
        #expect(ExitCode(for: CryptoVaultError(.corruptBundle, "")) == .dataError)
        #expect(ExitCode(for: CryptoVaultError(.foreignBundle, "")) == .dataError)
        #expect(ExitCode(for: CryptoVaultError(.bundleNotFound, "")) == .noInput)
        #expect(ExitCode(for: CryptoVaultError(.invalidName, "")) == .usage)
    }

    @Test("an id of the wrong length (only stored data holds one: a header, a row) exits 65, bad data, not the default 1")
    func invalidIdentifierIsBadData() {
        #expect(ExitCode(for: CryptoVaultError(.invalidIdentifier, "a bundle id of 15 bytes")) == .dataError)
    }
}
