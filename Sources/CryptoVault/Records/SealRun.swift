/// The seals of a transaction recorded since its last other entry, gathered into `record.seal` entries
/// (SECURITY.md §4.8): one per compartment for each run of consecutive seals, naming up to 64 records
/// and 4 KiB of names as a `record.open` entry does, instead of one entry per record. Writing a
/// document of 300 changed paragraphs costs five entries, not 300; each record sealed is still named.
///
/// A run ends when the transaction records anything else (the run's entries go first, so the log
/// keeps the order things happened in) and when the transaction appends its entries.
struct SealRun {
    private var runs: [(compartment: CompartmentID, seals: [(location: SealedRecordLocation, bytes: Int)])] = []

    var isEmpty: Bool { runs.isEmpty }

    mutating func add(_ location: SealedRecordLocation, bytes: Int, in compartment: CompartmentID) {
        if let index = runs.firstIndex(where: { $0.compartment == compartment }) {
            runs[index].seals.append((location, bytes))
        } else {
            runs.append((compartment, [(location, bytes)]))
        }
    }

    /// The run's `record.seal` events, in the order the compartments were first sealed in; the run is emptied.
    mutating func take() -> [VaultEvent] {
        defer { runs.removeAll() }
        return runs.flatMap { run in
            Self.groups(run.seals).map { group in
                VaultEvent(.recordSeal, compartmentID: run.compartment,
                           details: [.init("records", SealedRecordLocation.describe(group.lazy.map(\.location))),
                                     .init("count", String(group.count)),
                                     .init(UnlockedVault.bytesDetailName, String(group.reduce(0) { $0 + $1.bytes }))])
            }
        }
    }

    /// Seals cut into groups of at most 64 records and 4 KiB of names (a detail's limit, §8.2), in order.
    private static func groups(_ seals: [(location: SealedRecordLocation, bytes: Int)]) -> [ArraySlice<(location: SealedRecordLocation, bytes: Int)>] {
        var groups: [ArraySlice<(location: SealedRecordLocation, bytes: Int)>] = []
        var start = 0, names = -1
        for (index, seal) in seals.enumerated() {
            let size = seal.location.descriptionSize
            if index > start, index - start == SealedRecords.recordsPerOpenEntry || names + 1 + size > SealedRecords.namesPerOpenEntry {
                groups.append(seals[start..<index])
                (start, names) = (index, -1)
            }
            names += 1 + size
        }
        if start < seals.count { groups.append(seals[start...]) }
        return groups
    }
}
