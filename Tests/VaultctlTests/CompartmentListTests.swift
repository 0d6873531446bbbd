import Foundation
import Testing

@Suite("vaultctl compartment list: key versions")
struct CompartmentListTests {
    @Test("a retired key version is marked retired; the live ones are not")
    func retiredVersionMarked() throws {
        let fixture = try CLIVault()
        #expect(try fixture.run(["compartment", "create", "files", "--register", "general"]).status == 0)
        #expect(try fixture.run(["compartment", "rotate", "files"]).status == 0)
        #expect(try fixture.run(["compartment", "retire", "files", "--version", "1", "--yes"]).status == 0)
        let listed = try fixture.run(["compartment", "list"])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("keys v1 (retired),v2\n"), "\(listed.stdout)")
    }
}
