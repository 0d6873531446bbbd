import CryptoVault

extension WritingStore {
    /// How many block records (a block's words) `compartment` holds, from the sealed records' clear
    /// columns only: nothing is opened or recorded. `vaultctl repair --from` asks it of a project
    /// whose rows no longer read (a table gone): its words are then in these records alone, which no
    /// command reads without the rows (reviewer s17, F17-6).
    public func sealedBlockCount(in compartment: VaultCompartment) throws -> Int {
        let blocks = DamagedLink.Table.blocks
        return try transaction.recordIDs(ofModule: WritingRecord.module, fields: [blocks.rawValue: blocks.field], in: compartment)[blocks.rawValue]?.count ?? 0
    }
}
