/// Refusals of a message of another version of the exchange (SECURITY.md §19.9, "Versions"), said so
/// that the owner knows which device to update. Version 3 came with the merge rule of block conflicts
/// (§19.3): a device of version 2 shows other documents from the same records, so the two never
/// exchange a record, rather than diverge without a word.
enum SyncVersionRefusal {
    /// Why this side refuses a message of `version` (a request or an answer): each older version
    /// named with what it lacks and what to do, read by the device that sent it.
    static func refusal(of version: UInt8) -> SyncExchangeError {
        let older = switch version {
        case 1: " (the exchange before offers named an origin and a role's time: update that device's software)"
        case 2: " (the exchange before the merge rule of block conflicts, which shows other documents from the same records: "
            + "update vaultctl on that device)"
        default: ""
        }
        return SyncWireReader.malformed("version \(version)\(older); this side speaks version \(SyncWire.version) only")
    }

    /// `error`, a refusal of this side's request, said plainly when the peer refused it for its
    /// version and speaks an older one: that device runs an older build, to be updated. An older
    /// build's words cannot change ("… this side speaks version N only"), so they are read here.
    /// Nil for any other refusal.
    static func refusedByOlderVersion(_ error: SyncExchangeError, peer name: String) -> SyncExchangeError? {
        guard error.code == .malformedMessage, let spoken = spokenVersion(in: error.message), spoken < SyncWire.version else { return nil }
        let why = spoken == 2 ? "exchange version 2, before the merge rule of block conflicts" : "exchange version \(spoken)"
        return SyncExchangeError(.malformedMessage, "\(name) runs an older build of vaultctl (\(why)): update vaultctl on \(name), "
                                 + "then sync again (\(error.message))")
    }

    /// N in a refusal ending "this side speaks version N only", the words every build has used.
    private static func spokenVersion(in message: String) -> UInt8? {
        let marker = "this side speaks version ", end = " only"
        guard message.hasSuffix(end), let range = message.range(of: marker, options: .backwards) else { return nil }
        return UInt8(message[range.upperBound..<message.index(message.endIndex, offsetBy: -end.count)])
    }
}
