import Foundation
import Writing

/// The sync conflicts waiting for the owner (issue 17's syncConflict branches): every open branch of
/// that kind in the projects the console may read, with where it is, so the page links each to its
/// document, where it is adopted or discarded like any branch. Privileged projects without a live
/// session are counted, not read.
struct ConflictRoutes {
    let access: ProjectAccess

    func list() throws -> [String: Any] {
        var conflicts: [[String: Any]] = [], lockedProjects = 0
        for project in try access.projects() where !project.isArchived {
            guard access.access(for: project) != nil else { lockedProjects += 1; continue }
            // A session can end between the check and the read: that project is then counted as locked.
            do { conflicts += try access.store(for: project) { store in try Self.open(in: project, store) } } catch {
                guard ErrorMapping.consoleError(for: error).code == .sessionRequired else { throw error }
                lockedProjects += 1
            }
        }
        return ["conflicts": conflicts, "locked_projects": lockedProjects]
    }

    private static func open(in project: WritingProject, _ store: WritingStore) throws -> [[String: Any]] {
        // A name that does not open is that project's damage (R15-8), never the whole list's.
        let name = try DamagedProjectName.listed(project.id) { try store.name(of: project) }
        return try store.nodes(in: project.id).filter { $0.kind == .scene }.flatMap { node in
            try store.branches(of: node.id, in: project.id).filter { $0.kind == .syncConflict && $0.state == .open }.map { branch in
                var row = VersionRoutes.json(branch)
                row["project"] = project.id.hex
                switch name {
                case .success(let name): row["project_name"] = name ?? NSNull()
                case .failure(let damage): (row["project_name"], row["project_name_damaged"]) = (NSNull(), damage.reason)
                }
                row["document"] = node.id.hex
                row["document_title"] = node.title
                return row
            }
        }
    }
}
