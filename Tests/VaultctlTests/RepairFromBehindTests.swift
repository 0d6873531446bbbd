import Foundation
import Testing
import TestSupport

/// `vaultctl repair --from DEVICE` of a device that is only behind (review 20, F20-8): the laptop was
/// off while the desk wrote on, so its document is a text the desk's records had before. The repair
/// compared the words with the desk's document as it is now, called the laptop's older text "words
/// that device does not hold" and refused, so the usual repair (a laptop rebuilt from the desk) was
/// refused whenever the desk had moved on. Words typed only here still refuse it.
@Suite(.serialized)
struct RepairFromBehindTests {
    @Test func aDeviceOnlyBehindIsRebuiltWithNothingNamedAtRisk() throws {
        let f = try SyncOverNetworkFixture()
        try f.type("deskafter", into: 2, on: f.desk)

        let rebuilt = try f.hosts.run(.laptop, f.laptop, ["repair", "--from", f.deskFingerprint, "--address", f.channelAddress, "--json"])
        #expect(rebuilt.status == 0, "\(rebuilt.stderr)")
        let report = try RepairCommandTests.json(rebuilt)
        #expect((report["replaced_here"] as? [Any])?.isEmpty ?? true, "\(report)")
        let laptop = try f.state(f.laptop).text
        #expect(laptop == (try f.state(f.desk).text), "\(laptop)")
        #expect(laptop.joined(separator: " ").contains("deskafter"), "\(laptop)")
    }

    @Test func aWordTypedOnlyHereStillRefusesTheRepair() throws {
        let f = try SyncOverNetworkFixture()
        try f.type("deskafter", into: 2, on: f.desk)
        try f.type("laptoponly", into: 1, on: f.laptop)

        let refused = try f.hosts.run(.laptop, f.laptop, ["repair", "--from", f.deskFingerprint, "--address", f.channelAddress])
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("1 document(s) here hold words that device does not"), "\(refused.stderr)")
        #expect(refused.stderr.contains("'Day one' (\(f.document.hex)) of project \(f.project.hex)"), "\(refused.stderr)")
        #expect(try RepairFromDeviceTests.repairActions(f) == ["sync.repair-refused"])
        #expect(try f.state(f.laptop).text.joined(separator: " ").contains("laptoponly"), "the refused repair changed the document")
    }
}
