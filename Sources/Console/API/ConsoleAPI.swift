import Appliance
import AuditChain
import CryptoVault
import Foundation
import PrivilegedSession
import Registers
import Sync
import Writing

/// The console's JSON API under `/api/` (SECURITY.md §16.5). Each route calls the same library the
/// CLI's commands call, in one audited transaction, so every read and write is recorded as the
/// CLI's are and a privileged project is read only through a session.
struct ConsoleAPI: Sendable {
    let access: ProjectAccess
    let limits: SessionLimits
    let pairing = DevicePairing()
    let assistantChecks = AssistantChecks()
    /// The daemon's sync coordinator: editor pages hold their document's sync changes with it.
    let coordinator = SyncCoordinator.shared

    func handle(_ request: HTTPRequest, _ route: [String], csrf: String) throws -> HTTPResponse {
        let projects = ProjectRoutes(access: access), documents = DocumentRoutes(access: access)
        let sessions = SessionRoutes(access: access, limits: limits), audit = AuditRoutes(vault: access.vault)
        let on = RouteMatch(method: request.method, route: route)
        let inMemory = access.vault.vault.inMemoryCopyReason
        if on(.get, "session") != nil { return .json(["csrf": csrf].merging(inMemory.map { ["in_memory": $0] } ?? [:]) { $1 }) }
        if let inMemory { try Self.refuseInMemory(request, route, reason: inMemory) }
        if on(.get, "events") != nil { return try ChangeFeed(vault: access.vault, coordinator: coordinator).response() }
        if on(.get, "registers") != nil { return .json(RegisterJSON.all()) }
        if on(.get, "projects") != nil { return .json(try projects.list()) }
        if on(.post, "projects") != nil { return .json(try projects.create(try JSONBody(request)), status: 201) }
        if let p = on(.get, "projects", "*") { return .json(try projects.binder(p[0]).merging(["session": try sessions.countdown(p[0])]) { $1 }) }
        if let p = on(.post, "projects", "*", "nodes") { return .json(try projects.addNode(p[0], try JSONBody(request)), status: 201) }
        if let p = on(.post, "projects", "*", "nodes", "*", "move") { return .json(try projects.move(p[0], p[1], try JSONBody(request))) }
        if let p = on(.post, "projects", "*", "nodes", "*", "rename") { return .json(try projects.rename(p[0], p[1], try JSONBody(request))) }
        if let p = on(.get, "projects", "*", "documents", "*") { return .json(try documents.read(p[0], p[1])) }
        if let p = on(.put, "projects", "*", "documents", "*") { return try documents.write(p[0], p[1], try JSONBody(request)) }
        let versions = VersionRoutes(access: access)
        let document = ["projects", "*", "documents", "*"]
        let holds = EditorHoldRoutes(access: access, coordinator: coordinator)
        if let p = on(.post, document + ["editor"]) { return .json(try holds.open(p[0], p[1]), status: 201) }
        if let p = on(.post, "editors", "*") { return .json(try holds.renew(p[0])) }
        if let p = on(.delete, "editors", "*") { return .json(try holds.close(p[0])) }
        if let p = on(.get, document + ["snapshots"]) { return .json(try versions.snapshots(p[0], p[1])) }
        if let p = on(.post, document + ["snapshots"]) { return .json(try versions.createSnapshot(p[0], p[1], try JSONBody(request)), status: 201) }
        if let p = on(.post, document + ["snapshots", "*", "restore"]) { return .json(try versions.restore(p[0], p[1], p[2])) }
        if let p = on(.get, document + ["diff"]) { return .json(try versions.diff(p[0], p[1], request)) }
        if let p = on(.get, document + ["branches"]) { return .json(try versions.branches(p[0], p[1])) }
        if let p = on(.get, document + ["branches", "*"]) { return .json(try versions.branch(p[0], p[1], p[2])) }
        for decision in ["adopt", "discard", "revert"] {
            if let p = on(.post, document + ["branches", "*", decision]) { return .json(try versions.decide(p[0], p[1], p[2], decision)) }
        }
        let assistant = AssistantRoutes(access: access, checks: assistantChecks)
        if let p = on(.get, "projects", "*", "assistant") { return .json(try assistant.lanes(p[0])) }
        if let p = on(.post, document + ["assistant", "check"]) { return .json(try assistant.check(p[0], p[1], try JSONBody(request))) }
        if let p = on(.post, document + ["assistant", "run"]) { return try assistant.run(p[0], p[1], try JSONBody(request)) }
        if let p = on(.get, "projects", "*", "search") { return .json(try versions.search(p[0], request)) }
        if on(.get, "sessions") != nil { return .json(try sessions.list()) }
        if on(.post, "sessions") != nil { return .json(try sessions.start(try JSONBody(request)), status: 201) }
        if let p = on(.delete, "sessions", "*") { return .json(try sessions.end(p[0])) }
        let devices = DeviceRoutes(vault: access.vault, pairing: pairing)
        if on(.get, "devices") != nil { return .json(try devices.list()) }
        if on(.post, "devices", "pairing") != nil { return .json(try devices.startPairing(try JSONBody(request)), status: 201) }
        if on(.delete, "devices", "pairing") != nil { return .json(devices.cancelPairing()) }
        if let p = on(.delete, "devices", "*") { return .json(try devices.revoke(p[0])) }
        if let p = on(.post, "devices", "*", "trust") { return .json(try devices.setTrust(p[0], try JSONBody(request))) }
        let sync = SyncRoutes(vault: access.vault)
        if let p = on(.post, "devices", "*", "sync") { return .json(try sync.syncNow(p[0], try JSONBody(request))) }
        if let p = on(.post, "devices", "*", "sync", "pause") { return .json(try sync.setPaused(p[0], true)) }
        if let p = on(.post, "devices", "*", "sync", "resume") { return .json(try sync.setPaused(p[0], false)) }
        if on(.get, "conflicts") != nil { return .json(try ConflictRoutes(access: access).list()) }
        if on(.get, "egress") != nil { return .json(try EgressRoutes(vault: access.vault).list()) }
        if on(.get, "audit") != nil { return .json(try audit.recent(request)) }
        if on(.post, "audit", "verify") != nil { return .json(try audit.verify()) }
        if let p = on(.get, "audit", "entries", "*", "proof") { return .json(try audit.proof(p[0])) }
        if on(.get, "audit", "key") != nil { return .json(try audit.key()) }
        if on(.get, "audit", "export") != nil { return try audit.export() }
        throw on.pathMatched
            ? ConsoleError(.methodNotAllowed, "this route does not take \(request.method.rawValue)")
            : ConsoleError(.notFound, "no such API route")
    }

    /// In in-memory mode (SECURITY.md §19.10) the console reads, as the command line does: a GET
    /// (but the audit export, an egress of the copy's log), a verification, a sync from an own device
    /// and an editor's hold (the daemon's memory, never the vault) run; any other change is refused
    /// before its route is reached, so a route added later is refused until it is put here.
    static func refuseInMemory(_ request: HTTPRequest, _ route: [String], reason: String) throws {
        let on = RouteMatch(method: request.method, route: route)
        let document = ["projects", "*", "documents", "*"]
        let allowed = (request.method == .get && on(.get, "audit", "export") == nil) || on(.post, "audit", "verify") != nil
            || on(.post, "devices", "*", "sync") != nil || on(.post, document + ["editor"]) != nil
            || on(.post, "editors", "*") != nil || on(.delete, "editors", "*") != nil
        guard !allowed else { return }
        throw ConsoleError(.inMemoryMode, "refused in in-memory mode (\(reason)): only reads run until 'vaultctl repair --from DEVICE' "
                           + "rebuilds the writing store")
    }
}

/// Matches a request's route against patterns ("*" takes one segment), returning the segments taken;
/// it remembers whether any pattern matched the path with another method (405 rather than 404).
final class RouteMatch {
    let method: HTTPMethod
    let route: [String]
    private(set) var pathMatched = false

    init(method: HTTPMethod, route: [String]) {
        self.method = method
        self.route = route
    }

    func callAsFunction(_ wanted: HTTPMethod, _ pattern: String...) -> [String]? { callAsFunction(wanted, pattern) }

    func callAsFunction(_ wanted: HTTPMethod, _ pattern: [String]) -> [String]? {
        guard pattern.count == route.count, zip(pattern, route).allSatisfy({ $0 == "*" || $0 == $1 }) else { return nil }
        pathMatched = true
        guard wanted == method else { return nil }
        return zip(pattern, route).filter { $0.0 == "*" }.map(\.1)
    }
}
