@testable import CryptoVault
import Foundation
import Testing
import TestSupport

/// Each table is read and written by the one type that owns it (STYLE.md, "each table read and
/// written by the one type that owns it"): every other file goes through that type. The test reads
/// Sources/ for SQL that names a table (`FROM t`, `INTO t`, `UPDATE t`, `JOIN t`, `TABLE t`) and fails
/// on a file outside the table's owner.
@Suite struct OwnedSQLGuardTests {
    /// Table → its owner type and the file(s) that type lives in.
    /// The repair doors of the core tables (reviewer15's R15-7, R15-9, R15-10): each reads the rows a
    /// flipped bit damaged, across the tables that say what the row held, and writes that one row
    /// again, recorded. They are their tables' owners' for that one purpose, as BundleRestore is.
    static let keyVersionMend = "CryptoVault/Vault/CompartmentKeyVersionMend.swift"
    static let recordVersionMend = "CryptoVault/Records/SealedRecordKeyVersionMend.swift"
    static let compartmentRowMend = "CryptoVault/Vault/CompartmentRowMend.swift"

    static let owners: [String: (owner: String, files: Set<String>)] = [
        "vault_meta": ("Vault", ["CryptoVault/Vault/Vault.swift", "CryptoVault/Vault/MetadataBinding.swift"]),
        "keyslots": ("Vault (keyslots)", ["CryptoVault/Vault/Vault.swift", "CryptoVault/Vault/UnlockedVault.swift"]),
        "compartments": ("CompartmentStore", ["CryptoVault/Vault/CompartmentStore.swift", "CryptoVault/Vault/MetadataBinding.swift", keyVersionMend, recordVersionMend, compartmentRowMend]),
        "compartment_keys": ("CompartmentStore", ["CryptoVault/Vault/CompartmentStore.swift", keyVersionMend]),
        "bundles": ("BundleStore", ["CryptoVault/Vault/BundleStore.swift", "CryptoVault/Vault/BundleRestore.swift", keyVersionMend]),
        "audit_entries": ("AuditTreeStore (reads) and AuditEntryWriter (appends)", ["AuditChain/AuditTreeStore.swift", "AuditChain/AuditEntryWriter.swift"]),
        "audit_nodes": ("AuditTreeStore", ["AuditChain/AuditTreeStore.swift"]),
        "audit_signing_keys": ("AuditKeyChainStore", ["AuditChain/AuditKeyChainStore.swift"]),
        "audit_checkpoints": ("Checkpointer", ["AuditChain/Checkpointer.swift"]),
        "audit_cosignatures": ("AuditCosignatureStore", ["AuditChain/AuditCosignatureStore.swift"]),
        "device_identity": ("DeviceProfileStore", ["CryptoVault/Device/DeviceProfileStore.swift"]),
        "family_pairings": ("FamilyPairing", ["CryptoVault/Device/FamilyPairing.swift"]),
        "peer_trust": ("DeviceTrust", ["CryptoVault/Device/DeviceTrust.swift"]),
        "leak_fingerprints": ("LeakFingerprintStore", ["CryptoVault/Vault/LeakFingerprintStore.swift"]),
        "replicas": ("ReplicaStore", ["PeerChannel/Replication/ReplicaStore.swift"]),
        "witnessed_logs": ("WitnessedLog", ["PeerChannel/Witnessing/WitnessedLog.swift"]),
        "shared_compartments": ("SharedCompartmentStore", ["CryptoVault/Sharing/SharedCompartmentStore.swift"]),
        "shared_compartment_keys": ("SharedCompartmentStore", ["CryptoVault/Sharing/SharedCompartmentStore.swift"]),
        "module_migrations": ("ModuleMigrationLog", ["CryptoVault/Store/ModuleMigrationLog.swift"]),
        "sealed_records": ("SealedRecordStore", ["CryptoVault/Records/SealedRecordStore.swift", keyVersionMend, recordVersionMend]),
    ]

    /// Reaches not yet routed through the owner: (table, file). Empty, and it must stay so: every
    /// reach is routed (the test below fails on an entry added back, and on any reach outside an owner).
    static let notYetRouted: Set<String> = []

    /// The schema files make the tables; they are not reaches.
    /// BackupPublicRecordSchema.swift makes the tables of a backup's public record, a database of its
    /// own whose tables copy the vault's public ones under the same names.
    static let schemaFiles: Set<String> = ["CryptoVault/Store/Schema.swift", "CryptoVault/Store/ModuleSchema.swift",
                                           "CryptoVault/Backup/BackupPublicRecordSchema.swift"]

    static func reaches() throws -> Set<String> {
        let tables = try VaultSchema(adding: []).currentTables().filter { !$0.contains(".") }
        var found = Set<String>()
        for file in try SeamGuardTests.sources() {
            let path = String(file.path.dropFirst("Sources/".count))
            guard !schemaFiles.contains(path) else { continue }
            for table in tables {
                let regex = try NSRegularExpression(pattern: #"\b(FROM|INTO|UPDATE|JOIN|TABLE)\s+"# + table + #"\b"#)
                if regex.firstMatch(in: file.text, range: NSRange(file.text.startIndex..., in: file.text)) != nil {
                    found.insert("\(table) \(path)")
                }
            }
        }
        return found
    }

    @Test("every table of the schema has an owner in the map")
    func everyTableHasAnOwner() throws {
        let tables = try VaultSchema(adding: []).currentTables().filter { !$0.contains(".") }
        #expect(tables.subtracting(Self.owners.keys).sorted() == [], "add the new table's owner to OwnedSQLGuardTests.owners")
    }

    @Test("no file outside a table's owner has SQL naming it, besides the listed reaches still to route")
    func tablesAreTouchedOnlyByTheirOwners() throws {
        let outside = try Self.reaches().filter { reach in
            let parts = reach.split(separator: " ", maxSplits: 1).map(String.init)
            return !(Self.owners[parts[0]]?.files.contains(parts[1]) ?? false)
        }
        #expect(outside.sorted() == [], "route these through the table's owner")
        #expect(Self.notYetRouted.sorted() == [], "every reach is routed: an exception may not be added back")
    }

    @Test("every file the owner map names exists, so the map cannot go stale")
    func ownerFilesExist() throws {
        let sources = Set(try SeamGuardTests.sources().map { String($0.path.dropFirst("Sources/".count)) })
        let named = Set(Self.owners.values.flatMap(\.files)).union(Self.schemaFiles)
        #expect(named.subtracting(sources).sorted() == [])
    }

    @Test("the guard finds a reach: the owners' own files do name their tables")
    func guardSeesSQL() throws {
        let reaches = try Self.reaches()
        #expect(reaches.contains("audit_signing_keys AuditChain/AuditKeyChainStore.swift"))
        #expect(reaches.contains("family_pairings CryptoVault/Device/FamilyPairing.swift"))
    }
}
