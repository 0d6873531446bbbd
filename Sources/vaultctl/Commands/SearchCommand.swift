import CryptoVault
import Foundation
import Registers
import Writing

/// search: full-text search over a project's documents, through an index built in memory for the
/// one command and dropped with it (SECURITY.md §15.4).
enum SearchCommand {
    static let command = Command("search", synopsis: "find the documents of a project that hold words or phrases", usage: "PROJECT QUERY",
                                 about: """
        Searches the documents of PROJECT (its name or id) for QUERY and lists each document in
        which every term of it occurs, with the blocks that matched and a few words around the
        first match in each. A term is a word (case and accents do not matter: 'eclair' finds
        'Éclair'), a prefix ending in * ('harb*', at least 2 letters), or a "quoted phrase" whose
        words must stand next to each other. A query holds at most \(SearchQuery.maximumTerms) terms in
        \(SearchQuery.maximumBytes) bytes; one that does not parse exits 64 with the reason.

        The index lives only in this command's memory: nothing of it is written to disk. The audit
        log records the read and the number of documents found, never the query.

        \(WritingContext.sessionNote)
        """, options: DocCommands.readOptions, positionals: 2...2, json: true, examples: [
            "vaultctl search \"The harbour\" 'harb* \"grey boat\"'",
            "vaultctl search \"Intake notes\" insomnia --purpose \"prepare the review\" --json",
        ]) { arguments in
            let query = try SearchQuery(parsing: arguments.positionals[1])
            let context = try WritingContext(arguments)
            defer { context.end() }
            let project = try context.project(arguments.positionals[0])
            let (hits, nodes) = try context.store(for: project) { (try $0.search(query, in: project.id), try $0.nodes(in: project.id)) }
            let titles = Dictionary(uniqueKeysWithValues: nodes.map { ($0.id, $0.title) })
            if arguments.has("--json") { Output.json(hits.map { json($0, title: titles[$0.document] ?? "", project.register) }); return }
            Output.line("\(hits.count) \(WritingContext.term(.scene, project.register, plural: hits.count != 1)) found")
            for hit in hits {
                Output.line("\(hit.document)  \(titles[hit.document] ?? "")  (\(hit.matches) match\(hit.matches == 1 ? "" : "es"))")
                for block in hit.blocks { Output.line("    \(BlockEncoding.name(of: block.kind).padding(toLength: 10, withPad: " ", startingAt: 0)) \(block.snippet)") }
            }
        }

    static func json(_ hit: SearchHit, title: String, _ register: Register) -> [String: Any] {
        ["id": hit.document.hex, "title": title, "label": WritingContext.term(.scene, register), "matches": hit.matches,
         "blocks": hit.blocks.map { ["id": $0.block.hex, "kind": BlockEncoding.name(of: $0.kind), "snippet": $0.snippet, "matches": $0.matches] }]
    }
}
