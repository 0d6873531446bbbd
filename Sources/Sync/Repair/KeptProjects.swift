import CryptoVault
import Writing

/// Projects here that the device `vaultctl repair --from DEVICE` rebuilds from does not offer (made
/// here and never synced, or shared with this device only), kept through the rebuild as they are
/// here (SECURITY.md §19.10; closing note s10, "Left open": the rebuild dropped each whole, its words
/// then only in the kept copy). A project is kept when its rows read whole: each row of each table of
/// the modules `writing` and `sync` that is the project's is one the tables' own CHECK, NOT NULL and
/// references take (`problem`). Its rows are copied aside before the reset drops the tables and put
/// back after it makes them again (`copyAside`, `putBack`); the records sealed in its compartment are
/// not removed (`WritingStoreReset.reset(in:keeping:)`); the exchange's tables are never reset.
enum KeptProjects {
    /// A table of the store, its columns, and how its rows are found to be some projects'.
    struct Table {
        let name: String
        let columns: [String]
        /// SQL over the table's columns that holds for the rows of the projects in `list` (an SQL list
        /// of blobs); nil for a table whose rows are no project's.
        let owner: ((String) -> String)?

        var list: String { columns.map { "\"\($0)\"" }.joined(separator: ", ") }
    }

    /// The store's tables in the order its migrations make them. A row is a project's when the table
    /// has a `project_id`, is the table `project_id` refers to (by its key), or refers to a table with
    /// a `project_id` (a block, by its document): from the migrations run on an empty database in
    /// memory, never from the vault's own, possibly damaged, schema.
    static func tables() throws -> [Table] {
        let reference = try referenceDatabase()
        let names = try reference.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid").map { try $0.text("name") }
        var columns: [String: [String]] = [:]
        var references: [String: [(from: String, table: String, to: String)]] = [:]
        for name in names {
            columns[name] = try reference.query("PRAGMA table_info(\"\(name)\")").map { try $0.text("name") }
            references[name] = try reference.query("PRAGMA foreign_key_list(\"\(name)\")").map {
                (try $0.text("from"), try $0.text("table"), try $0.text("to"))
            }
        }
        let projects = references.values.flatMap { $0 }.first { $0.from == "project_id" }
        return names.map { name in
            let own = columns[name] ?? []
            if own.contains("project_id") { return Table(name: name, columns: own) { "\"project_id\" IN \($0)" } }
            if let projects, projects.table == name { return Table(name: name, columns: own) { "\"\(projects.to)\" IN \($0)" } }
            if let parent = references[name]?.first(where: { columns[$0.table]?.contains("project_id") == true }) {
                return Table(name: name, columns: own) { "\"\(parent.from)\" IN (SELECT \"\(parent.to)\" FROM \"\(parent.table)\" WHERE \"project_id\" IN \($0))" }
            }
            return Table(name: name, columns: own, owner: nil)
        }
    }

    /// The modules' tables made by their migrations in a new database in memory.
    private static func referenceDatabase() throws -> Database {
        let database = try Database(path: ":memory:", create: true, readOnly: false)
        for module in WritingStoreReset.modules {
            for migration in module.migrations { try database.execute(migration.sql) }
        }
        return database
    }

    /// `projects` as an SQL list of blobs.
    static func list(_ projects: [ProjectID]) -> String {
        "(" + projects.map { "X'\($0.hex)'" }.joined(separator: ", ") + ")"
    }

    /// Why `project`'s rows would not be kept whole, or nil when they would: each of its rows read
    /// from `database` and written into the tables the migrations make, in a database in memory
    /// where every CHECK, NOT NULL and reference holds. A table missing or with other columns, a row
    /// that does not read or that its table refuses, or a row referring to one the project lacks
    /// (a block of no document of it) is a reason. Only reads `database`.
    static func problem(of project: ProjectID, in database: Database, tables: [Table]) -> String? {
        do {
            let trial = try referenceDatabase()
            for table in tables {
                guard let owner = table.owner else { continue }
                let found = try database.query("PRAGMA table_info(\"\(table.name)\")").map { try $0.text("name") }
                guard found == table.columns else {
                    return found.isEmpty ? "the table \(table.name) is missing" : "the table \(table.name) does not have the columns its migrations made"
                }
                let marks = Array(repeating: "?", count: table.columns.count).joined(separator: ", ")
                for row in try database.query("SELECT \(table.list) FROM \"\(table.name)\" WHERE \(owner(list([project])))") {
                    do {
                        try trial.query("INSERT INTO \"\(table.name)\" (\(table.list)) VALUES (\(marks))", table.columns.map { row[$0] })
                    } catch {
                        return "a row of \(table.name) holds a value no writer stores"
                    }
                }
            }
            if let orphan = try trial.query("PRAGMA foreign_key_check").first {
                return "a row of \(try orphan.text("table")) refers to a row of \(try orphan.text("parent")) the project does not hold"
            }
            return nil
        } catch {
            return "its rows cannot be read (\((error as? CryptoVaultError)?.code.rawValue ?? "unreadable"))"
        }
    }

    /// The name of the temporary table `table`'s kept rows wait in.
    private static func aside(_ table: Table) -> String { "temp.\"repair_kept_\(table.name)\"" }

    /// Copies the rows of `projects` aside, into temporary tables of this connection (inside the
    /// caller's transaction), before the reset drops the store's tables.
    static func copyAside(_ projects: [ProjectID], in database: Database, tables: [Table]) throws {
        for table in tables {
            guard let owner = table.owner else { continue }
            try database.execute("DROP TABLE IF EXISTS \(aside(table))")
            try database.execute("CREATE TEMP TABLE \"repair_kept_\(table.name)\" AS SELECT \(table.list) FROM main.\"\(table.name)\" WHERE \(owner(list(projects)))")
        }
    }

    /// Puts the rows `copyAside` kept back into the tables the reset made again, in the order they
    /// are made (the references are checked at commit); the temporary tables go.
    static func putBack(in database: Database, tables: [Table]) throws {
        for table in tables where table.owner != nil {
            try database.execute("INSERT INTO main.\"\(table.name)\" (\(table.list)) SELECT \(table.list) FROM \(aside(table))")
            try database.execute("DROP TABLE \(aside(table))")
        }
    }
}
