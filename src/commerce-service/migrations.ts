/**
 * The schema, as an ordered list of migrations. A migration is applied once, in its own
 * transaction, and recorded in `schema_migrations` by id; never edit one that has shipped:
 * append a new one. Other route owners append theirs at the end of `migrations`.
 *
 * Conventions every table follows:
 * - `store_id` on every row; every query starts with `store_id = ?` (tenancy).
 * - Timestamps are 24-character ISO strings (`YYYY-MM-DDTHH:mm:ss.sssZ`), so text order is time
 *   order, and ids are lowercase uuid text.
 * - Every list gets three indexes, `(store_id[, parent], created_at, id)`, `(…, updated_at, id)`
 *   and `(…, id)`, so that list, sort and keyset queries (`eq(created_at,T):gt(id,X)`,
 *   `gt(created_at,T)`) are index range scans with no temporary sort.
 */

export interface Migration {
  /** Unique, ordered name, e.g. `0001-core`. */
  id: string;
  sql: string;
}

export const migrations: Migration[] = [
  {
    id: '0001-core',
    sql: `
      CREATE TABLE stores (
        id TEXT PRIMARY KEY,
        store_id TEXT NOT NULL GENERATED ALWAYS AS (id) VIRTUAL,
        client_id TEXT NOT NULL UNIQUE,
        page_length INTEGER NOT NULL DEFAULT 25 CHECK (page_length BETWEEN 1 AND 100),
        custom_discounts_enabled INTEGER NOT NULL DEFAULT 0 CHECK (custom_discounts_enabled IN (0, 1)),
        seeded_at TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );

      CREATE TABLE access_tokens (
        token_hash TEXT PRIMARY KEY,
        store_id TEXT NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        client_id TEXT NOT NULL,
        grant_type TEXT NOT NULL CHECK (grant_type IN ('client_credentials', 'implicit')),
        expires_at INTEGER NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX access_tokens_expiry ON access_tokens (expires_at);
      CREATE INDEX access_tokens_store ON access_tokens (store_id);

      CREATE TABLE custom_apis (
        id TEXT PRIMARY KEY,
        store_id TEXT NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '',
        slug TEXT NOT NULL,
        api_type TEXT NOT NULL,
        allow_upserts INTEGER NOT NULL DEFAULT 0 CHECK (allow_upserts IN (0, 1)),
        -- Kept by triggers below, so an unfiltered entry list needs no count(*) over the set.
        entry_count INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (store_id, slug),
        UNIQUE (store_id, api_type)
      );
      CREATE INDEX custom_apis_created ON custom_apis (store_id, created_at, id);
      CREATE INDEX custom_apis_updated ON custom_apis (store_id, updated_at, id);
      CREATE INDEX custom_apis_id ON custom_apis (store_id, id);

      CREATE TABLE custom_api_entries (
        store_id TEXT NOT NULL,
        custom_api_id TEXT NOT NULL REFERENCES custom_apis(id) ON DELETE CASCADE,
        id TEXT NOT NULL,
        -- The attributes as one JSON object, in the order the client first sent them.
        data TEXT NOT NULL,
        data_size INTEGER NOT NULL,
        resource_version INTEGER NOT NULL DEFAULT 0,
        etag_id TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        -- Entry ids are scoped to their Custom API: a client-chosen id (upsert) can never
        -- collide with, or reveal, an entry of another store.
        UNIQUE (store_id, custom_api_id, id)
      );
      CREATE INDEX custom_api_entries_created
        ON custom_api_entries (store_id, custom_api_id, created_at, id);
      CREATE INDEX custom_api_entries_updated
        ON custom_api_entries (store_id, custom_api_id, updated_at, id);
      CREATE INDEX custom_api_entries_parent ON custom_api_entries (custom_api_id);

      CREATE TRIGGER custom_api_entries_count_insert AFTER INSERT ON custom_api_entries BEGIN
        UPDATE custom_apis SET entry_count = entry_count + 1 WHERE id = NEW.custom_api_id;
      END;
      CREATE TRIGGER custom_api_entries_count_delete AFTER DELETE ON custom_api_entries BEGIN
        UPDATE custom_apis SET entry_count = entry_count - 1 WHERE id = OLD.custom_api_id;
      END;
    `,
  },
];
