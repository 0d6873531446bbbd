import Testing
import TestSupport

/// Each assistant table is read and written by one type (STYLE.md: "each table read and written by
/// the type that owns it"): no other source file names them.
@Suite struct AssistantOwnedSQLTests {
    @Test(arguments: ["assistant_providers", "assistant_policies", "assistant_interactions"])
    func onlyTheStoreAndTheSchemaNameTheTable(table: String) throws {
        let reaching = try PackageFiles.swiftSources().filter { $0.text.contains(table) }.map(\.path)
        #expect(Set(reaching) == ["Sources/Assistant/Store/AssistantStore.swift", "Sources/Assistant/Store/AssistantSchema.swift"])
    }
}
