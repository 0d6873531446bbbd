import CryptoVault
import Foundation
import PrivilegedSession
import Registers
import Sync
import Writing

/// Projects and their binders: list, create (from a register's template), the binder tree, add a
/// document or folder, move one.
struct ProjectRoutes {
    let access: ProjectAccess

    func list() throws -> [[String: Any]] {
        let origins = try SharedProjectOrigin.all(in: access.vault)
        return try access.projects().map { project in try json(project, listed: access.listedName(of: project), origins: origins) }
    }

    /// `{name, register, kind?, template?, purpose?}`. A template adds its first document; in a
    /// privileged project that needs a session, started with `purpose` when none is open.
    func create(_ body: JSONBody) throws -> [String: Any] {
        guard let register = Register(rawValue: try body.string("register")) else { throw ConsoleError(.invalidBody, "unknown register") }
        let kind = try body.optionalString("kind").map { text throws(ConsoleError) -> ProjectKind in
            guard let kind = ProjectKind(rawValue: text) else { throw ConsoleError(.invalidBody, "kind is document or long-form") }
            return kind
        } ?? .document
        let template = try body.optionalString("template").map { id throws(ConsoleError) -> Template in
            guard let template = register.profile.template(id) else { throw ConsoleError(.invalidBody, "no template '\(id)' in this register") }
            return template
        }
        let project = try access.vault.createProjectMadeHere(named: try body.string("name"), register: register, kind: kind)
        var result = try json(project, name: access.name(of: project))
        if let template {
            if project.isPrivileged, access.access(for: project) == nil {
                guard let purpose = try body.optionalString("purpose"), !purpose.isEmpty else {
                    throw ConsoleError(.sessionRequired, "the project was made; give a purpose to open a session and add the template")
                }
                try SessionRoutes(access: access).startSession(for: project, purpose: purpose)
            }
            let node = try access.store(for: project) { store in
                let node = try store.addNode(.scene, titled: template.name, in: project.id)
                try store.replaceDocumentContent(of: node.id, in: project.id, with: try Self.content(of: template))
                return node
            }
            result["document"] = node.id.hex
        }
        return result
    }

    static func content(of template: Template) throws -> DocumentContent {
        DocumentContent(blocks: try template.blocks.map { Block(id: try BlockID.random(), kind: $0.kind, text: $0.text, rows: $0.rows) })
    }

    func binder(_ projectText: String) throws -> [String: Any] {
        let project = try access.project(projectText)
        // A name that does not open leaves the project's documents readable (R15-8).
        let (name, nodes, outline) = try access.store(for: project) { store in
            (try DamagedProjectName.listed(project.id) { try store.name(of: project) }, try store.nodes(in: project.id), try store.outline(of: project.id))
        }
        var result = try json(project, listed: name)
        result["nodes"] = zip(nodes, outline).map { node, line in
            var row = Self.nodeJSON(node, project.register)
            row["depth"] = line.depth
            return row
        }
        return result
    }

    /// `{kind: "scene"|"chapter", title, parent?}`.
    func addNode(_ projectText: String, _ body: JSONBody) throws -> [String: Any] {
        let project = try access.project(projectText)
        guard let kind = NodeKind(rawValue: try body.string("kind")) else { throw ConsoleError(.invalidBody, "kind is scene or chapter") }
        let parent = try body.optionalString("parent").map { try NodeID(hex: $0) }
        let node = try access.store(for: project) { try $0.addNode(kind, titled: try body.string("title"), in: project.id, under: parent) }
        return Self.nodeJSON(node, project.register)
    }

    /// `{parent?, before?}`: into a folder (or the top level) before a sibling (or at the end).
    func move(_ projectText: String, _ nodeText: String, _ body: JSONBody) throws -> [String: Any] {
        let project = try access.project(projectText)
        let node = try NodeID(hex: nodeText)
        let parent = try body.optionalString("parent").map { try NodeID(hex: $0) }
        let before = try body.optionalString("before").map { try NodeID(hex: $0) }
        let moved = try access.store(for: project) { store in
            try store.moveNode(node, in: project.id, under: parent, before: before)
            return try store.node(node, in: project.id)
        }
        return Self.nodeJSON(moved, project.register)
    }

    /// `{title}`: a document's or folder's new title (sealed, as every title is).
    func rename(_ projectText: String, _ nodeText: String, _ body: JSONBody) throws -> [String: Any] {
        let project = try access.project(projectText)
        let node = try NodeID(hex: nodeText)
        let renamed = try access.store(for: project) { store in
            try store.renameNode(node, in: project.id, to: try body.string("title"))
            return try store.node(node, in: project.id)
        }
        return Self.nodeJSON(renamed, project.register)
    }

    /// `json(_:name:origins:)` for a name as a listing reads it: one that does not open is null, with
    /// `name_damaged` its error's code (R15-8), so the page shows that project by its id as damaged.
    func json(_ project: WritingProject, listed: Result<String?, DamagedProjectName>,
              origins: [ProjectID: SharedProjectOrigin]? = nil) throws -> [String: Any] {
        switch listed {
        case .success(let name): return try json(project, name: name, origins: origins)
        case .failure(let damage):
            var row = try json(project, name: nil, origins: origins)
            row["name_damaged"] = damage.reason
            return row
        }
    }

    /// `shared_by`: whose the project is when someone else shared it (F17), else null.
    func json(_ project: WritingProject, name: String?, origins: [ProjectID: SharedProjectOrigin]? = nil) throws -> [String: Any] {
        let origin = try (origins ?? SharedProjectOrigin.all(in: access.vault))[project.id]
        return ["id": project.id.hex, "name": name ?? NSNull(), "register": project.register.rawValue, "kind": project.kind.rawValue,
                "compartment": project.compartment.id.hex, "privileged": project.isPrivileged, "locked": access.access(for: project) == nil,
                "archived": project.isArchived, "view_only": project.isViewOnly, "theme": project.register.profile.themeColour.hex,
                "terms": RegisterJSON.terms(project.register.profile.lexicon),
                "shared_by": origin.map { ["device": $0.device.hex, "name": $0.name, "role": $0.role] as [String: Any] } ?? NSNull()]
    }

    static func nodeJSON(_ node: BinderNode, _ register: Register) -> [String: Any] {
        let key: TermKey = node.kind == .chapter ? .chapter : .scene
        return ["id": node.id.hex, "kind": node.kind.rawValue, "label": register.profile.lexicon.singular(key) ?? key.rawValue,
                "title": node.title, "parent": node.parent?.hex ?? NSNull()]
    }
}
