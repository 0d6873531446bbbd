import CryptoVault

/// What the audit log keeps of an egress decision: never the payload, only its SHA-256 and size, the
/// destination, the compartments (their ids), the decision and how many of each kind the leak guard
/// found. Recorded as an `egress.decision` entry whose details are sealed (SECURITY.md §10.5).
public struct EgressRecord: Sendable, Equatable {
    public let destination: String
    public let compartmentIDs: [CompartmentID]
    public let decision: EgressDecision
    /// Counts per kind of finding, e.g. ["socialSecurityNumber": 2].
    public let findings: [String: Int]
    public let payloadSHA256: [UInt8]
    public let payloadSize: Int
    /// The privileged session the request was made in (its id in hex), when it was made in one.
    public let sessionID: String?

    var details: [VaultEvent.Detail] {
        [.init("destination", destination),
         .init("compartments", compartmentIDs.map(\.hex).joined(separator: ",")),
         .init("decision", decision.rawValue),
         .init("findings", findings.isEmpty ? "none" : findings.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")),
         .init("sha256", ByteEncoding.hex(payloadSHA256)),
         .init("size", "\(payloadSize)")] + (sessionID.map { [.init("session", $0)] } ?? [])
    }

    /// Rebuilds a record from an entry's unsealed details; nil if they are not an egress record's.
    init?(details: [VaultEvent.Detail]) {
        let values = Dictionary(details.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        guard let destination = values["destination"], let compartments = values["compartments"],
              let decision = values["decision"].flatMap(EgressDecision.init(rawValue:)), let findings = values["findings"],
              let hash = values["sha256"].flatMap({ ByteEncoding.bytes(fromHex: Substring($0)) }), hash.count == 32,
              let size = values["size"].flatMap(Int.init), size >= 0 else { return nil }
        let ids = compartments.isEmpty ? [] : compartments.split(separator: ",").compactMap { try? CompartmentID(hex: String($0)) }
        var counts: [String: Int] = [:]
        if findings != "none" {
            for pair in findings.split(separator: ",") {
                let parts = pair.split(separator: "=")
                guard parts.count == 2, let count = Int(parts[1]) else { return nil }
                counts[String(parts[0])] = count
            }
        }
        self.init(destination: destination, compartmentIDs: ids, decision: decision, findings: counts, payloadSHA256: hash, payloadSize: size,
                  sessionID: values["session"])
    }

    init(destination: String, compartmentIDs: [CompartmentID], decision: EgressDecision, findings: [String: Int],
         payloadSHA256: [UInt8], payloadSize: Int, sessionID: String? = nil) {
        self.destination = destination
        self.compartmentIDs = compartmentIDs
        self.decision = decision
        self.findings = findings
        self.payloadSHA256 = payloadSHA256
        self.payloadSize = payloadSize
        self.sessionID = sessionID
    }
}
