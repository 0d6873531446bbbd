/// The record of every bundle operation, written in the same transaction as the operation itself
/// (the audit chain turns these rows into its log). The table refuses UPDATE and DELETE.
public enum VaultAction: String, Sendable {
    case seal, open, put, get, rm, rewrap
}

public struct OperationRecord: Sendable, Equatable {
    public let id: Int64
    public let time: Int64
    public let action: VaultAction
    public let compartmentID: [UInt8]?
    public let bundleID: [UInt8]?
    public let bytes: Int64?
}

extension UnlockedVault {
    /// Appends a record; call inside the write transaction of the operation it records.
    func record(_ action: VaultAction, compartmentID: [UInt8]?, bundleID: [UInt8]?, bytes: UInt64?, in database: Database,
                details: [VaultEvent.Detail] = []) throws {
        try journal(VaultEvent("bundle.\(action.rawValue)", compartmentID: compartmentID, subjectID: bundleID, details: details), in: database)
        try database.query("INSERT INTO operations (time, action, compartment_uuid, bundle_id, bytes) VALUES (?, ?, ?, ?, ?)",
                           [.integer(Clock.now()), .text(action.rawValue), compartmentID.map { .blob($0) } ?? .null,
                            bundleID.map { .blob($0) } ?? .null, bytes.map { .integer(Int64($0)) } ?? .null])
    }

    /// Records an operation that changed nothing else in the vault (an open, a get), in its own transaction.
    public func record(_ action: VaultAction, bundle header: BundleHeader, bytes: UInt64?, details: [VaultEvent.Detail] = []) throws {
        try vault.withDatabase { database in
            try database.writeTransaction {
                try record(action, compartmentID: header.compartmentID, bundleID: header.bundleID, bytes: bytes, in: database, details: details)
            }
        }
    }

    public func operations() throws -> [OperationRecord] {
        try vault.withDatabase { database in
            try database.query("SELECT * FROM operations ORDER BY id").map { row in
                guard let action = VaultAction(rawValue: try row.text("action")) else {
                    throw CryptoVaultError(.corruptVault, "the vault database is damaged: an operation has an unknown action")
                }
                let compartment = try? row.blob("compartment_uuid")
                let bundle = try? row.blob("bundle_id")
                return OperationRecord(id: try row.integer("id"), time: try row.integer("time"), action: action,
                                       compartmentID: compartment?.isEmpty == false ? compartment : nil,
                                       bundleID: bundle?.isEmpty == false ? bundle : nil, bytes: try? row.integer("bytes"))
            }
        }
    }
}
