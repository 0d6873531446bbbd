import CryptoVault

/// The assistant's tables, as one named list of migrations (SECURITY.md §4.1.1, §17.6). Append only.
public enum AssistantSchema {
    public static let module = ModuleSchema(module: "assistant", migrations: [
        // Providers (§17.6): name, kind, URL, model and whether local are clear (none is a secret:
        // the URL is a loopback or private address, the model is in every egress destination).
        // Per-project policies, as canonical JSON of lane and provider names and flags.
        // Interactions: one row per call (ids, lane, provider, outcome, the branch made); the
        // prompt and answer are the sealed AIInteraction record in the project's compartment.
        NamedMigration("assistant-1", """
            CREATE TABLE assistant_providers (
                name TEXT PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 64),
                kind TEXT NOT NULL CHECK (kind IN ('openai', 'ollama')),
                url TEXT NOT NULL,
                model TEXT NOT NULL,
                local INTEGER NOT NULL CHECK (local IN (0, 1)),
                added_at INTEGER NOT NULL
            );
            CREATE TABLE assistant_policies (
                project_id BLOB PRIMARY KEY CHECK (length(project_id) = 16),
                policy TEXT NOT NULL,
                updated_at INTEGER NOT NULL
            );
            CREATE TABLE assistant_interactions (
                id BLOB PRIMARY KEY CHECK (length(id) = 16),
                project_id BLOB NOT NULL CHECK (length(project_id) = 16),
                document_id BLOB NOT NULL CHECK (length(document_id) = 16),
                lane TEXT NOT NULL,
                provider TEXT NOT NULL,
                outcome TEXT NOT NULL,
                branch_id BLOB CHECK (branch_id IS NULL OR length(branch_id) = 16),
                parts INTEGER NOT NULL CHECK (parts >= 1),
                created_at INTEGER NOT NULL
            );
            CREATE INDEX assistant_interactions_by_project ON assistant_interactions (project_id, created_at);
            """),
        // CustomEndpoint (§17.6): the kind `custom`, and the names of the headers a provider sends
        // (a JSON array of names, clear) with the compartment their values are sealed in (sealed
        // records at assistant/assistant_providers/NAME/headerN; never a value in this table).
        // SQLite cannot change a CHECK, so the table is made again and its rows copied.
        NamedMigration("assistant-2-custom-endpoints", """
            CREATE TABLE assistant_providers_2 (
                name TEXT PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 64),
                kind TEXT NOT NULL CHECK (kind IN ('openai', 'ollama', 'custom')),
                url TEXT NOT NULL,
                model TEXT NOT NULL,
                local INTEGER NOT NULL CHECK (local IN (0, 1)),
                added_at INTEGER NOT NULL,
                header_names TEXT NOT NULL DEFAULT '[]',
                secrets_compartment BLOB CHECK (secrets_compartment IS NULL OR length(secrets_compartment) = 16)
            );
            INSERT INTO assistant_providers_2 (name, kind, url, model, local, added_at)
                SELECT name, kind, url, model, local, added_at FROM assistant_providers;
            DROP TABLE assistant_providers;
            ALTER TABLE assistant_providers_2 RENAME TO assistant_providers;
            """),
    ])
}
