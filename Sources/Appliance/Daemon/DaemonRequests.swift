import AuditChain
import CryptoVault
import Foundation
import PrivilegedSession
import Writing

/// What the daemon does for its owner's local clients (SECURITY.md §10.6): start, list and end
/// privileged processing sessions, and read bundles, a privileged one only through a live session of
/// its compartment. Every answer is one message; a read streams its plaintext first.
struct DaemonRequests: Sendable {
    let vault: UnlockedVault
    let sessions: SessionRegistry
    let limits: SessionLimits
    let failureReply: Daemon.FailureReply
    let commands: ForwardedCommand.Host?

    func handle(_ request: ControlMessage, on connection: ControlConnection, from client: PeerCredentials) {
        do {
            try record(request, from: client)
            switch request.text("op") {
            case "session.start": try connection.send(try startSession(request))
            case "session.list": try connection.send(listSessions())
            case "session.end": try connection.send(try endSessions(request))
            case "read": try read(request, on: connection)
            case "name": try connection.send(try name(request))
            case "command": try connection.send(try run(request, on: connection, from: client))
            default: throw ApplianceError(.invalidRequest, "unknown request '\(request.text("op") ?? "")'")
            }
        } catch {
            try? connection.send(failureReply(error))
        }
    }

    /// Every request is an audit entry with the uid and pid the kernel gave for the connection, made
    /// before the request is carried out (SECURITY.md §10.8); a request that cannot be recorded is
    /// not carried out.
    private func record(_ request: ControlMessage, from client: PeerCredentials) throws {
        let op = request.text("op") ?? ""
        let what = op == "command" ? "command " + (request.text("command") ?? "") : op
        try vault.record(VaultEvent(.applianceRequest, details: [.init("uid", "\(client.uid)"), .init("pid", "\(client.pid)"),
                                                                 .init("request", what)]))
    }

    /// Runs a command for the client ("command": its path, "arguments": the whole command line,
    /// NUL-separated), with the client's streams and directory passed after the request, and answers
    /// with its exit status once it is done.
    private func run(_ request: ControlMessage, on connection: ControlConnection, from client: PeerCredentials) throws -> ControlMessage {
        guard let commands else { throw ApplianceError(.invalidRequest, "this daemon runs no commands") }
        let command = try Self.required("command", in: request)
        guard let encoded = request.bytes("arguments"), !encoded.isEmpty else {
            throw ApplianceError(.invalidRequest, "the request 'command' needs 'arguments'")
        }
        let arguments = encoded.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        let descriptors = try connection.receiveDescriptors(count: ForwardedCommand.descriptorCount,
                                                            before: VaultClock.system.date().addingTimeInterval(connection.timeoutSeconds))
        let forwarded = try ForwardedCommand.take(descriptors, command: command, arguments: arguments, client: client,
                                                  vault: vault, sessions: sessions)
        var reply = ControlMessage.success()
        reply.set("exit", "\(commands(forwarded))")
        return reply
    }

    /// What a client would be told of `error`, for the daemon's own log.
    func message(of error: Error) -> String { failureReply(error).text("message") ?? "\(error)" }

    private func startSession(_ request: ControlMessage) throws -> ControlMessage {
        let compartment = try vault.compartment(named: try Self.required("compartment", in: request))
        let session = try PrivilegedProcessingSession.start(vault: vault, compartment: compartment, actor: AuditLog.currentAccount(),
                                                            purpose: try Self.required("purpose", in: request), limits: limits)
        sessions.add(session)
        var reply = ControlMessage.success()
        reply.set("session", bytes: Array(try SessionListing.json([session.summary], limits: limits)))
        return reply
    }

    private func listSessions() throws -> ControlMessage {
        var reply = ControlMessage.success()
        reply.set("sessions", bytes: Array(try SessionListing.json(sessions.live().map(\.summary), limits: limits)))
        return reply
    }

    private func endSessions(_ request: ControlMessage) throws -> ControlMessage {
        let ending = request.text("session") == "all" ? sessions.live() : [try sessions.session(id: try Self.required("session", in: request))]
        defer { if !ending.isEmpty { vault.dropSearchIndexes() } }   // a privileged project's index goes with its session
        for session in ending { try sessions.end(session) }
        var reply = ControlMessage.success()
        reply.set("sessions", bytes: Array(try SessionListing.json(ending.map(\.summary), limits: limits)))
        return reply
    }

    /// The sealed name of a privileged stored bundle ("bundle"), read in the newest live session of its
    /// compartment: `ls` shows it only to someone who has opened a session for a purpose.
    private func name(_ request: ControlMessage) throws -> ControlMessage {
        let bundleID = try BundleReads.resolve(try Self.required("bundle", in: request), in: vault)
        guard let compartment = BundleReads.privilegedCompartment(of: .stored(bundleID), vault: vault) else {
            throw ApplianceError(.invalidRequest, "'name' is for a privileged bundle; ls reads an ordinary one's name itself")
        }
        let session = try sessions.newestSession(of: compartment)
        var reply = ControlMessage.success()
        reply.set("name", try session.storedName(bundleID))
        return reply
    }

    /// Reads a stored bundle ("bundle": id or prefix) or a bundle file ("path", absolute).
    private func read(_ request: ControlMessage, on connection: ControlConnection) throws {
        let source = try self.source(of: request)
        let range = try request.text("range").map { try BundleReads.parseRange($0) }
        let threads = Int(request.text("threads") ?? "").map { min(max($0, 1), 256) } ?? BundleThreads.available
        if let compartment = BundleReads.privilegedCompartment(of: source, vault: vault) {
            let session = try request.text("session").map(sessions.session(id:)) ?? sessions.newestSession(of: compartment)
            guard session.compartment.id == compartment.id else {
                throw ApplianceError(.noSession, "session \(session.idString.prefix(12)) is for compartment '\(session.compartment.name)', not '\(compartment.name)'")
            }
            try PlaintextStream.send(over: connection) { sink in
                try session.read(source, range: range, threads: threads, sink: sink)
            }
            return
        }
        let opened = try BundleReads.openOrdinary(source, vault: vault)
        try PlaintextStream.send(over: connection) { sink in
            try BundleReads.release(opened, range: range, threads: threads, sink: sink)
        }
    }

    private func source(of request: ControlMessage) throws -> BundleSource {
        if let bundle = request.text("bundle") { return .stored(try BundleReads.resolve(bundle, in: vault)) }
        let path = try Self.required("path", in: request)
        guard path.hasPrefix("/") else { throw ApplianceError(.invalidRequest, "a bundle path sent to the daemon must be absolute") }
        // The client chose this path: never block on it (a FIFO), and open nothing but a regular file.
        return .file(try FileDescriptor.openRegularFileForReading(path))
    }

    private static func required(_ field: String, in request: ControlMessage) throws -> String {
        guard let value = request.text(field), !value.isEmpty else {
            throw ApplianceError(.invalidRequest, "the request '\(request.text("op") ?? "")' needs '\(field)'")
        }
        return value
    }
}
