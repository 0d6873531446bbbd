/// Bytes bound out of the vault that the leak guard cannot read (a bundle's ciphertext sent to a
/// replica, a share grant's wrapped keys), described by what the egress funnel decides on instead:
/// where they go, the compartments they come from, their size and their SHA-256 (SECURITY.md §10.5).
public struct CiphertextEgress: Sendable, Equatable {
    public enum Destination: Sendable, Equatable {
        /// One of the owner's paired devices (its device id): a replica kept there.
        case pairedDevice(DeviceID)
        /// A device the owner shares a compartment with (its device id).
        case share(DeviceID)
    }

    public let destination: Destination
    public let compartmentIDs: [CompartmentID]
    public let size: UInt64
    public let sha256: [UInt8]

    public init(destination: Destination, compartmentIDs: [CompartmentID], size: UInt64, sha256: [UInt8]) {
        self.destination = destination
        self.compartmentIDs = compartmentIDs
        self.size = size
        self.sha256 = sha256
    }
}

/// The egress funnel's permission for exactly one `CiphertextEgress`. It lives here, below the
/// funnel, so that PeerChannel's transports can demand one without knowing the funnel
/// (PrivilegedSession sits above PeerChannel). Only the funnel makes one: the initializer is
/// package-internal and called in one file, `Sources/PrivilegedSession/Egress/CiphertextClearance.swift`,
/// after the decision is recorded (a guard test scans Sources/ for any other call).
public struct EgressClearance: Sendable {
    public let egress: CiphertextEgress

    package init(recordedDecisionFor egress: CiphertextEgress) {
        self.egress = egress
    }
}

/// What decides whether ciphertext may leave: the egress funnel. A transport asks it for a clearance
/// of what it is about to send, and sends nothing without one (SECURITY.md §10.5).
public protocol EgressClearing: Sendable {
    /// A clearance for `egress`, once its decision is recorded; throws if the decision refuses it.
    func clear(_ egress: CiphertextEgress) throws -> EgressClearance
}
