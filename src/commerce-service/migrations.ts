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
        -- Superseded by custom_api_entry_counts (migration 0200-core-entry-counts).
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
  {
    // service-commerce: carts, custom items and discounts, orders, files, accounts.
    id: '0100-commerce',
    sql: `
      CREATE TABLE carts (
        id TEXT PRIMARY KEY,
        store_id TEXT NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '',
        currency TEXT NOT NULL DEFAULT 'USD',
        custom_discounts_enabled INTEGER NOT NULL CHECK (custom_discounts_enabled IN (0, 1)),
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX carts_store ON carts (store_id, id);

      CREATE TABLE cart_items (
        id TEXT PRIMARY KEY,
        store_id TEXT NOT NULL,
        cart_id TEXT NOT NULL REFERENCES carts(id) ON DELETE CASCADE,
        type TEXT NOT NULL DEFAULT 'custom_item',
        name TEXT NOT NULL,
        sku TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '',
        quantity INTEGER NOT NULL CHECK (quantity >= 1),
        unit_amount INTEGER NOT NULL CHECK (unit_amount >= 0),
        includes_tax INTEGER NOT NULL CHECK (includes_tax IN (0, 1)),
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX cart_items_cart ON cart_items (cart_id, created_at, id);

      -- item_id NULL = a cart-level discount.
      CREATE TABLE cart_custom_discounts (
        id TEXT PRIMARY KEY,
        store_id TEXT NOT NULL,
        cart_id TEXT NOT NULL REFERENCES carts(id) ON DELETE CASCADE,
        item_id TEXT REFERENCES cart_items(id) ON DELETE CASCADE,
        amount INTEGER NOT NULL CHECK (amount < 0),
        description TEXT NOT NULL,
        discount_code TEXT NOT NULL,
        discount_engine TEXT NOT NULL,
        external_id TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX cart_custom_discounts_cart ON cart_custom_discounts (cart_id, created_at, id);
      CREATE INDEX cart_custom_discounts_item ON cart_custom_discounts (item_id);

      CREATE TABLE orders (
        id TEXT PRIMARY KEY,
        store_id TEXT NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        cart_id TEXT,
        status TEXT NOT NULL,
        payment TEXT NOT NULL,
        shipping TEXT NOT NULL,
        customer_name TEXT NOT NULL,
        customer_email TEXT NOT NULL,
        -- Addresses as the client sent them (validated), JSON text.
        billing_address TEXT NOT NULL,
        shipping_address TEXT,
        currency TEXT NOT NULL,
        with_tax INTEGER NOT NULL,
        without_discount INTEGER NOT NULL,
        discount INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX orders_created ON orders (store_id, created_at, id);
      CREATE INDEX orders_updated ON orders (store_id, updated_at, id);
      CREATE INDEX orders_id ON orders (store_id, id);

      CREATE TABLE order_items (
        id TEXT PRIMARY KEY,
        store_id TEXT NOT NULL,
        order_id TEXT NOT NULL REFERENCES orders(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        sku TEXT NOT NULL,
        quantity INTEGER NOT NULL,
        unit_amount INTEGER NOT NULL,
        discount INTEGER NOT NULL,
        currency TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX order_items_order ON order_items (order_id, id);

      -- Metadata only: lists scan these rows, so the bytes live in file_contents.
      CREATE TABLE files (
        id TEXT PRIMARY KEY,
        store_id TEXT NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        file_name TEXT NOT NULL,
        mime_type TEXT NOT NULL,
        file_size INTEGER NOT NULL,
        public INTEGER NOT NULL CHECK (public IN (0, 1)),
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX files_created ON files (store_id, created_at, id);
      CREATE INDEX files_updated ON files (store_id, updated_at, id);
      CREATE INDEX files_id ON files (store_id, id);

      CREATE TABLE file_contents (
        file_id TEXT PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
        content BLOB NOT NULL
      );

      CREATE TABLE accounts (
        id TEXT PRIMARY KEY,
        store_id TEXT NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        legal_name TEXT,
        registration_id TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX accounts_created ON accounts (store_id, created_at, id);
      CREATE INDEX accounts_updated ON accounts (store_id, updated_at, id);
      CREATE INDEX accounts_id ON accounts (store_id, id);
    `,
  },
  {
    // The entry counter moves off custom_apis: updating a parent row that has a million
    // children made every entry insert re-check the foreign key over all of them (bulk loads
    // went quadratic). A separate counter table has no children, so its upsert stays O(1).
    id: '0200-core-entry-counts',
    sql: `
      DROP TRIGGER custom_api_entries_count_insert;
      DROP TRIGGER custom_api_entries_count_delete;
      ALTER TABLE custom_apis DROP COLUMN entry_count;

      CREATE TABLE custom_api_entry_counts (
        custom_api_id TEXT PRIMARY KEY REFERENCES custom_apis(id) ON DELETE CASCADE,
        store_id TEXT NOT NULL,
        entry_count INTEGER NOT NULL
      ) WITHOUT ROWID;
      INSERT INTO custom_api_entry_counts (custom_api_id, store_id, entry_count)
        SELECT custom_api_id, store_id, count(*) FROM custom_api_entries
        GROUP BY custom_api_id, store_id;

      CREATE TRIGGER custom_api_entry_counts_insert AFTER INSERT ON custom_api_entries BEGIN
        INSERT INTO custom_api_entry_counts (custom_api_id, store_id, entry_count)
        VALUES (NEW.custom_api_id, NEW.store_id, 1)
        ON CONFLICT (custom_api_id) DO UPDATE SET entry_count = entry_count + 1;
      END;
      CREATE TRIGGER custom_api_entry_counts_delete AFTER DELETE ON custom_api_entries BEGIN
        UPDATE custom_api_entry_counts SET entry_count = entry_count - 1
        WHERE custom_api_id = OLD.custom_api_id;
      END;
    `,
  },
  {
    // listing-perf: per-store row counters for the big lists, so an unfiltered results.total
    // is one lookup and a filtered one can be counted as total minus the rows outside the
    // filter's index interval (listing.ts). Same shape as custom_api_entry_counts: a table
    // with no children, so the trigger's upsert stays O(1) under foreign keys.
    id: '0300-listing-row-counts',
    sql: `
      CREATE TABLE store_row_counts (
        store_id TEXT NOT NULL,
        table_name TEXT NOT NULL,
        row_count INTEGER NOT NULL,
        PRIMARY KEY (store_id, table_name)
      ) WITHOUT ROWID;
      INSERT INTO store_row_counts (store_id, table_name, row_count)
        SELECT store_id, 'orders', count(*) FROM orders GROUP BY store_id
        UNION ALL SELECT store_id, 'files', count(*) FROM files GROUP BY store_id
        UNION ALL SELECT store_id, 'accounts', count(*) FROM accounts GROUP BY store_id;

      CREATE TRIGGER orders_row_count_insert AFTER INSERT ON orders BEGIN
        INSERT INTO store_row_counts (store_id, table_name, row_count)
        VALUES (NEW.store_id, 'orders', 1)
        ON CONFLICT (store_id, table_name) DO UPDATE SET row_count = row_count + 1;
      END;
      CREATE TRIGGER orders_row_count_delete AFTER DELETE ON orders BEGIN
        UPDATE store_row_counts SET row_count = row_count - 1
        WHERE store_id = OLD.store_id AND table_name = 'orders';
      END;
      CREATE TRIGGER orders_row_count_move AFTER UPDATE OF store_id ON orders
      WHEN NEW.store_id IS NOT OLD.store_id BEGIN
        UPDATE store_row_counts SET row_count = row_count - 1
        WHERE store_id = OLD.store_id AND table_name = 'orders';
        INSERT INTO store_row_counts (store_id, table_name, row_count)
        VALUES (NEW.store_id, 'orders', 1)
        ON CONFLICT (store_id, table_name) DO UPDATE SET row_count = row_count + 1;
      END;
      CREATE TRIGGER files_row_count_insert AFTER INSERT ON files BEGIN
        INSERT INTO store_row_counts (store_id, table_name, row_count)
        VALUES (NEW.store_id, 'files', 1)
        ON CONFLICT (store_id, table_name) DO UPDATE SET row_count = row_count + 1;
      END;
      CREATE TRIGGER files_row_count_delete AFTER DELETE ON files BEGIN
        UPDATE store_row_counts SET row_count = row_count - 1
        WHERE store_id = OLD.store_id AND table_name = 'files';
      END;
      CREATE TRIGGER files_row_count_move AFTER UPDATE OF store_id ON files
      WHEN NEW.store_id IS NOT OLD.store_id BEGIN
        UPDATE store_row_counts SET row_count = row_count - 1
        WHERE store_id = OLD.store_id AND table_name = 'files';
        INSERT INTO store_row_counts (store_id, table_name, row_count)
        VALUES (NEW.store_id, 'files', 1)
        ON CONFLICT (store_id, table_name) DO UPDATE SET row_count = row_count + 1;
      END;
      CREATE TRIGGER accounts_row_count_insert AFTER INSERT ON accounts BEGIN
        INSERT INTO store_row_counts (store_id, table_name, row_count)
        VALUES (NEW.store_id, 'accounts', 1)
        ON CONFLICT (store_id, table_name) DO UPDATE SET row_count = row_count + 1;
      END;
      CREATE TRIGGER accounts_row_count_delete AFTER DELETE ON accounts BEGIN
        UPDATE store_row_counts SET row_count = row_count - 1
        WHERE store_id = OLD.store_id AND table_name = 'accounts';
      END;
      CREATE TRIGGER accounts_row_count_move AFTER UPDATE OF store_id ON accounts
      WHEN NEW.store_id IS NOT OLD.store_id BEGIN
        UPDATE store_row_counts SET row_count = row_count - 1
        WHERE store_id = OLD.store_id AND table_name = 'accounts';
        INSERT INTO store_row_counts (store_id, table_name, row_count)
        VALUES (NEW.store_id, 'accounts', 1)
        ON CONFLICT (store_id, table_name) DO UPDATE SET row_count = row_count + 1;
      END;
    `,
  },
  {
    // listing-perf: each list index also carries the other timestamp, so a filter on a column
    // other than the sort (the gateway's pin le(created_at,…) under sort=id, updatedSince under
    // sort=created_at) is checked inside the sort index (listing.ts keeps it off its own index
    // with a unary +) instead of a table lookup for every row skipped by page[offset].
    // Entries keep sort=id on their UNIQUE (store_id, custom_api_id, id) index: SQLite prefers
    // it to any wider copy, so a covering one would only cost writes.
    id: '0310-listing-covering-indexes',
    sql: `
      DROP INDEX orders_created;
      DROP INDEX orders_updated;
      DROP INDEX orders_id;
      CREATE INDEX orders_created ON orders (store_id, created_at, id, updated_at);
      CREATE INDEX orders_updated ON orders (store_id, updated_at, id, created_at);
      CREATE INDEX orders_id ON orders (store_id, id, created_at, updated_at);
      DROP INDEX files_created;
      DROP INDEX files_updated;
      DROP INDEX files_id;
      CREATE INDEX files_created ON files (store_id, created_at, id, updated_at);
      CREATE INDEX files_updated ON files (store_id, updated_at, id, created_at);
      CREATE INDEX files_id ON files (store_id, id, created_at, updated_at);
      DROP INDEX accounts_created;
      DROP INDEX accounts_updated;
      DROP INDEX accounts_id;
      CREATE INDEX accounts_created ON accounts (store_id, created_at, id, updated_at);
      CREATE INDEX accounts_updated ON accounts (store_id, updated_at, id, created_at);
      CREATE INDEX accounts_id ON accounts (store_id, id, created_at, updated_at);
      DROP INDEX custom_api_entries_created;
      DROP INDEX custom_api_entries_updated;
      CREATE INDEX custom_api_entries_created
        ON custom_api_entries (store_id, custom_api_id, created_at, id, updated_at);
      CREATE INDEX custom_api_entries_updated
        ON custom_api_entries (store_id, custom_api_id, updated_at, id, created_at);
    `,
  },
  {
    // orders-doc: an order never changes once written, so its JSON:API object is rendered
    // once, by its writer, and stored (orders/routes.ts serves the text). The orders already
    // here are the rowids up to order_documents_backfill.last_rowid (later inserts get higher
    // ones): the service renders them when it starts, then deletes that row. Until then, and
    // for any order stored without a document, reads render it as before.
    id: '0400-order-documents',
    sql: `
      ALTER TABLE orders ADD COLUMN doc TEXT;
      CREATE TABLE order_documents_backfill (last_rowid INTEGER NOT NULL);
      INSERT INTO order_documents_backfill (last_rowid)
        SELECT max(rowid) FROM orders HAVING count(*) > 0;
    `,
  },
  {
    // listing-perf: an order-statistics "prefix ladder" for the big lists (listing.ts and
    // ladder.ts read it). For each list scope (store, or store + Custom API for entries) and
    // each sortable column, listing_prefix_counts holds how many rows have each prefix of the
    // column's value, at the prefix lengths ("levels") of listing_ladders: timestamps by month,
    // day, hour, minute, second and 10 ms (at most 100 children per parent; months on top keep
    // the top level small for years of data, 10 ms keeps finest buckets at tens of rows even
    // for bulk imports of thousands of rows a second), ids by their first 1, 2 and 3 hex digits
    // (16 children; ~250 rows a finest bucket at a million rows). The rank of a value (rows
    // below it) is then a few short range sums plus an index count inside one finest bucket, so
    // results.total of an interval and a page[offset] seek no longer grow with the list. The
    // key leads with the ladder id, so each level of a scope is one key range. Triggers keep
    // it: +1 / −1 per level in one upsert statement; buckets that drop to 0 stay (harmless to
    // sums, bounded by the values ever stored). The level set is frozen here: changing it needs
    // a new migration that rewrites listing_ladders, the triggers and the counts.
    id: '0410-listing-prefix-ladder',
    sql: ((): string => {
      const lists = [
        { table: 'orders', parent: '' },
        { table: 'files', parent: '' },
        { table: 'accounts', parent: '' },
        { table: 'custom_api_entries', parent: 'custom_api_id' },
      ];
      const timestampLevels = [7, 10, 13, 16, 19, 22];
      const levels: [string, number[]][] = [
        ['created_at', timestampLevels],
        ['updated_at', timestampLevels],
        ['id', [1, 2, 3]],
      ];
      const sql = [
        `CREATE TABLE listing_ladders (
           id INTEGER PRIMARY KEY,
           table_name TEXT NOT NULL,
           -- The scope column besides store_id ('' when the list is the store's own).
           parent_column TEXT NOT NULL,
           column_name TEXT NOT NULL,
           level INTEGER NOT NULL,
           UNIQUE (table_name, column_name, level)
         )`,
        `CREATE TABLE listing_prefix_counts (
           store_id TEXT NOT NULL,
           parent_id TEXT NOT NULL,
           ladder INTEGER NOT NULL,
           prefix TEXT NOT NULL,
           n INTEGER NOT NULL,
           PRIMARY KEY (ladder, store_id, parent_id, prefix)
         ) WITHOUT ROWID`,
      ];
      let nextId = 1;
      for (const { table, parent } of lists) {
        const rungs = levels.flatMap(([column, lengths]) =>
          lengths.map((level) => ({ id: nextId++, column, level })),
        );
        sql.push(
          `INSERT INTO listing_ladders (id, table_name, parent_column, column_name, level) VALUES
           ${rungs.map((r) => `(${r.id}, '${table}', '${parent}', '${r.column}', ${r.level})`).join(', ')}`,
        );
        const parentOf = (alias: string) => (parent ? `${alias}.${parent}` : `''`);
        // Backfill: the finest level from the rows, each coarser one from the level below it.
        for (const [column] of levels) {
          const own = rungs.filter((r) => r.column === column).reverse();
          const [finest, ...coarser] = own;
          if (!finest) continue;
          sql.push(
            `INSERT INTO listing_prefix_counts (store_id, parent_id, ladder, prefix, n)
             SELECT t.store_id, ${parentOf('t')}, ${finest.id}, substr(t.${column}, 1, ${finest.level}),
               count(*)
             FROM ${table} t
             GROUP BY t.store_id, ${parentOf('t')}, substr(t.${column}, 1, ${finest.level})`,
          );
          coarser.forEach((rung, i) => {
            const below = own[i];
            sql.push(
              `INSERT INTO listing_prefix_counts (store_id, parent_id, ladder, prefix, n)
               SELECT store_id, parent_id, ${rung.id}, substr(prefix, 1, ${rung.level}), sum(n)
               FROM listing_prefix_counts WHERE ladder = ${below?.id}
               GROUP BY store_id, parent_id, substr(prefix, 1, ${rung.level})`,
            );
          });
        }
        const rows = (alias: 'NEW' | 'OLD', delta: 1 | -1, column?: string) =>
          rungs
            .filter((r) => column === undefined || r.column === column)
            .map(
              (r) =>
                `(${alias}.store_id, ${parentOf(alias)}, ${r.id}, ` +
                `substr(${alias}.${r.column}, 1, ${r.level}), ${delta})`,
            );
        // `SELECT *`: inside a trigger, VALUES rows that read NEW/OLD do not expose column1…
        const upsert = (values: string[]) =>
          `INSERT INTO listing_prefix_counts (store_id, parent_id, ladder, prefix, n)
           SELECT * FROM (VALUES ${values.join(', ')})
           WHERE true ON CONFLICT DO UPDATE SET n = n + excluded.n;`;
        sql.push(
          `CREATE TRIGGER ${table}_ladder_insert AFTER INSERT ON ${table} BEGIN
             ${upsert(rows('NEW', 1))}
           END`,
          `CREATE TRIGGER ${table}_ladder_delete AFTER DELETE ON ${table} BEGIN
             ${upsert(rows('OLD', -1))}
           END`,
        );
        const scope = parent ? ['store_id', parent] : ['store_id'];
        for (const [column] of levels) {
          const watched = [...scope, column];
          sql.push(
            `CREATE TRIGGER ${table}_ladder_${column} AFTER UPDATE OF ${watched.join(', ')}
             ON ${table} WHEN ${watched.map((c) => `NEW.${c} IS NOT OLD.${c}`).join(' OR ')}
             BEGIN
               ${upsert([...rows('OLD', -1, column), ...rows('NEW', 1, column)])}
             END`,
          );
        }
      }
      return `${sql.join(';\n')};`;
    })(),
  },
  {
    // Field definitions of Custom APIs (production's typed attributes): entries of a Custom API
    // that has fields are validated against them, and filter on them. `validation` is the JSON
    // of the rules of the field's own type, as the API returns them under validation.<type>.
    id: '0500-custom-api-fields',
    sql: `
      CREATE TABLE custom_api_fields (
        id TEXT PRIMARY KEY,
        store_id TEXT NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        custom_api_id TEXT NOT NULL REFERENCES custom_apis(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        slug TEXT NOT NULL,
        field_type TEXT NOT NULL CHECK (field_type IN ('string', 'integer', 'float', 'boolean')),
        description TEXT NOT NULL DEFAULT '',
        validation TEXT NOT NULL DEFAULT '{}',
        use_as_url_slug INTEGER NOT NULL DEFAULT 0 CHECK (use_as_url_slug IN (0, 1)),
        sort_order INTEGER,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (custom_api_id, slug)
      );
      CREATE INDEX custom_api_fields_created
        ON custom_api_fields (store_id, custom_api_id, created_at, id);
      CREATE INDEX custom_api_fields_updated
        ON custom_api_fields (store_id, custom_api_id, updated_at, id);
      CREATE INDEX custom_api_fields_id ON custom_api_fields (store_id, custom_api_id, id);
    `,
  },
  {
    // Customers (passwords as scrypt hashes, never returned) and their tokens (sha256 of the
    // token, like access_tokens). Carts and orders gain the customer they belong to: a cart's
    // owner is set when a customer token creates it, an order's when checkout names the customer
    // (or is made with their token). Deleting a customer deletes their tokens and carts; their
    // orders stay (an order never changes once written). Lists scoped to one customer
    // (GET /v2/orders and GET /v2/carts under X-Moltin-Customer-Token) get their own
    // (store_id, customer_id, sort column, id) indexes; carts get the plain list indexes too.
    id: '0600-customers',
    sql: `
      CREATE TABLE customers (
        id TEXT PRIMARY KEY,
        store_id TEXT NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        email TEXT NOT NULL,
        -- lower(email): emails are unique per store whatever their case.
        email_key TEXT NOT NULL,
        -- 'scrypt$N$r$p$<salt b64>$<hash b64>', or NULL for a customer without a password.
        password_hash TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (store_id, email_key)
      );
      CREATE INDEX customers_created ON customers (store_id, created_at, id, updated_at);
      CREATE INDEX customers_updated ON customers (store_id, updated_at, id, created_at);
      CREATE INDEX customers_id ON customers (store_id, id, created_at, updated_at);

      CREATE TABLE customer_tokens (
        token_hash TEXT PRIMARY KEY,
        id TEXT NOT NULL,
        store_id TEXT NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        customer_id TEXT NOT NULL REFERENCES customers(id) ON DELETE CASCADE,
        expires_at INTEGER NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX customer_tokens_expiry ON customer_tokens (expires_at);
      CREATE INDEX customer_tokens_customer ON customer_tokens (customer_id);

      ALTER TABLE carts ADD COLUMN customer_id TEXT REFERENCES customers(id) ON DELETE CASCADE;
      CREATE INDEX carts_created ON carts (store_id, created_at, id, updated_at);
      CREATE INDEX carts_updated ON carts (store_id, updated_at, id, created_at);
      CREATE INDEX carts_customer_created ON carts (store_id, customer_id, created_at, id, updated_at);
      CREATE INDEX carts_customer_updated ON carts (store_id, customer_id, updated_at, id, created_at);
      CREATE INDEX carts_customer_id ON carts (store_id, customer_id, id, created_at, updated_at);

      ALTER TABLE orders ADD COLUMN customer_id TEXT;
      CREATE INDEX orders_customer_created
        ON orders (store_id, customer_id, created_at, id, updated_at);
      CREATE INDEX orders_customer_updated
        ON orders (store_id, customer_id, updated_at, id, created_at);
      CREATE INDEX orders_customer_id ON orders (store_id, customer_id, id, created_at, updated_at);
    `,
  },
  {
    // Product Experience Manager (/pcm): products (standard, parent, child; the JSON columns
    // hold what no query filters on), variations with their options and option modifiers,
    // the build jobs, hierarchies and their nodes, and which products sit in which node.
    // A child keeps its parent (parent_id) and its option combination (child_key, the sorted
    // option ids) so a rebuild finds it again; a child updated directly is detached: parent_id
    // is cleared and detached_from remembers the parent so a rebuild does not recreate it.
    // A node's children order (sort_order desc, then updated_at desc) and a node's product
    // order (curated first, in curated order, then newest first) are text keys, so each list
    // is one index range scan like every other list.
    id: '0700-pcm-catalog',
    sql: `
      CREATE TABLE pcm_products (
        id TEXT PRIMARY KEY,
        store_id TEXT NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        commodity_type TEXT NOT NULL CHECK (commodity_type IN ('physical', 'digital')),
        sku TEXT,
        slug TEXT,
        status TEXT NOT NULL CHECK (status IN ('draft', 'live')),
        description TEXT,
        upc_ean TEXT,
        mpn TEXT,
        external_ref TEXT,
        -- JSON array of strings.
        tags TEXT NOT NULL DEFAULT '[]',
        -- JSON object: locales, extensions, custom_inputs, build_rules, components.
        extra TEXT NOT NULL DEFAULT '{}',
        product_type TEXT NOT NULL DEFAULT 'standard'
          CHECK (product_type IN ('standard', 'parent', 'child', 'bundle')),
        parent_id TEXT REFERENCES pcm_products(id) ON DELETE CASCADE,
        child_key TEXT,
        detached_from TEXT,
        -- JSON: a child's variations and their chosen option; the price modifier names of its options.
        child_variations TEXT,
        price_modifiers TEXT NOT NULL DEFAULT '[]',
        main_image_id TEXT,
        -- JSON array of file ids.
        files TEXT NOT NULL DEFAULT '[]',
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (store_id, sku)
      );
      CREATE INDEX pcm_products_created ON pcm_products (store_id, created_at, id, updated_at);
      CREATE INDEX pcm_products_updated ON pcm_products (store_id, updated_at, id, created_at);
      CREATE INDEX pcm_products_id ON pcm_products (store_id, id, created_at, updated_at);
      CREATE INDEX pcm_products_parent_created ON pcm_products (store_id, parent_id, created_at, id);
      CREATE INDEX pcm_products_parent_updated ON pcm_products (store_id, parent_id, updated_at, id);
      CREATE INDEX pcm_products_parent_id ON pcm_products (store_id, parent_id, id);
      CREATE INDEX pcm_products_parent ON pcm_products (parent_id);
      CREATE INDEX pcm_products_detached ON pcm_products (detached_from, child_key);
      CREATE INDEX pcm_products_slug ON pcm_products (store_id, slug);

      CREATE TABLE pcm_variations (
        id TEXT PRIMARY KEY,
        store_id TEXT NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        sort_order INTEGER,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX pcm_variations_created ON pcm_variations (store_id, created_at, id);
      CREATE INDEX pcm_variations_updated ON pcm_variations (store_id, updated_at, id);
      CREATE INDEX pcm_variations_id ON pcm_variations (store_id, id);

      CREATE TABLE pcm_variation_options (
        id TEXT PRIMARY KEY,
        store_id TEXT NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        variation_id TEXT NOT NULL REFERENCES pcm_variations(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        description TEXT,
        sort_order INTEGER,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX pcm_options_created ON pcm_variation_options (store_id, variation_id, created_at, id);
      CREATE INDEX pcm_options_updated ON pcm_variation_options (store_id, variation_id, updated_at, id);
      CREATE INDEX pcm_options_id ON pcm_variation_options (store_id, variation_id, id);
      CREATE INDEX pcm_options_variation ON pcm_variation_options (variation_id);

      CREATE TABLE pcm_option_modifiers (
        id TEXT PRIMARY KEY,
        store_id TEXT NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        option_id TEXT NOT NULL REFERENCES pcm_variation_options(id) ON DELETE CASCADE,
        modifier_type TEXT NOT NULL,
        -- JSON object of the type's own attributes: {value} | {seek, set} | {reference_name}.
        body TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX pcm_modifiers_created ON pcm_option_modifiers (store_id, option_id, created_at, id);
      CREATE INDEX pcm_modifiers_updated ON pcm_option_modifiers (store_id, option_id, updated_at, id);
      CREATE INDEX pcm_modifiers_id ON pcm_option_modifiers (store_id, option_id, id);
      CREATE INDEX pcm_modifiers_option ON pcm_option_modifiers (option_id);

      -- A product's variations, in the order they were given.
      CREATE TABLE pcm_product_variations (
        product_id TEXT NOT NULL REFERENCES pcm_products(id) ON DELETE CASCADE,
        variation_id TEXT NOT NULL REFERENCES pcm_variations(id),
        position INTEGER NOT NULL,
        PRIMARY KEY (product_id, variation_id)
      ) WITHOUT ROWID;
      CREATE INDEX pcm_product_variations_variation ON pcm_product_variations (variation_id);

      CREATE TABLE pcm_jobs (
        id TEXT PRIMARY KEY,
        store_id TEXT NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        job_type TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'cancelled', 'started', 'success', 'failed')),
        -- JSON object of the job's meta besides x_request_id.
        meta TEXT NOT NULL DEFAULT '{}',
        x_request_id TEXT NOT NULL,
        -- JSON array of error messages.
        errors TEXT NOT NULL DEFAULT '[]',
        started_at TEXT,
        completed_at TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX pcm_jobs_created ON pcm_jobs (store_id, created_at, id);
      CREATE INDEX pcm_jobs_updated ON pcm_jobs (store_id, updated_at, id);
      CREATE INDEX pcm_jobs_id ON pcm_jobs (store_id, id);

      CREATE TABLE pcm_hierarchies (
        id TEXT PRIMARY KEY,
        store_id TEXT NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        slug TEXT,
        description TEXT,
        -- JSON object: locales, admin_attributes, shopper_attributes.
        extra TEXT NOT NULL DEFAULT '{}',
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX pcm_hierarchies_created ON pcm_hierarchies (store_id, created_at, id);
      CREATE INDEX pcm_hierarchies_updated ON pcm_hierarchies (store_id, updated_at, id);
      CREATE INDEX pcm_hierarchies_id ON pcm_hierarchies (store_id, id);

      CREATE TABLE pcm_nodes (
        id TEXT PRIMARY KEY,
        store_id TEXT NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        hierarchy_id TEXT NOT NULL REFERENCES pcm_hierarchies(id) ON DELETE CASCADE,
        -- NULL: a top-level node. Deleting a node deletes its subtree.
        parent_id TEXT REFERENCES pcm_nodes(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        slug TEXT,
        description TEXT,
        sort_order INTEGER,
        -- JSON object: locales, admin_attributes, shopper_attributes.
        extra TEXT NOT NULL DEFAULT '{}',
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        -- '' for a top-level node: list scopes compare with =, never IS NULL.
        parent_key TEXT GENERATED ALWAYS AS (COALESCE(parent_id, '')) VIRTUAL,
        -- Children order: sort_order desc, then updated_at desc (read descending).
        child_order TEXT GENERATED ALWAYS AS (
          CASE WHEN sort_order IS NULL THEN '0' || updated_at
          ELSE '1' || printf('%020d', sort_order + 9007199254740992) || updated_at END
        ) VIRTUAL
      );
      CREATE INDEX pcm_nodes_created ON pcm_nodes (store_id, created_at, id);
      CREATE INDEX pcm_nodes_updated ON pcm_nodes (store_id, updated_at, id);
      CREATE INDEX pcm_nodes_id ON pcm_nodes (store_id, id);
      CREATE INDEX pcm_nodes_hierarchy_created ON pcm_nodes (store_id, hierarchy_id, created_at, id);
      CREATE INDEX pcm_nodes_hierarchy_updated ON pcm_nodes (store_id, hierarchy_id, updated_at, id);
      CREATE INDEX pcm_nodes_hierarchy_id ON pcm_nodes (store_id, hierarchy_id, id);
      CREATE INDEX pcm_nodes_children ON pcm_nodes (store_id, hierarchy_id, parent_key, child_order, id);
      CREATE INDEX pcm_nodes_parent ON pcm_nodes (parent_id);

      CREATE TABLE pcm_node_products (
        store_id TEXT NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        node_id TEXT NOT NULL REFERENCES pcm_nodes(id) ON DELETE CASCADE,
        product_id TEXT NOT NULL REFERENCES pcm_products(id) ON DELETE CASCADE,
        -- 0-based place in the node's curated_products, or NULL.
        curated_position INTEGER,
        product_created_at TEXT NOT NULL,
        created_at TEXT NOT NULL,
        -- Curated first in curated order, then newest product first (read descending).
        list_order TEXT GENERATED ALWAYS AS (
          CASE WHEN curated_position IS NULL THEN '0' || product_created_at
          ELSE '1' || printf('%03d', 999 - curated_position) END
        ) VIRTUAL,
        PRIMARY KEY (node_id, product_id)
      );
      CREATE INDEX pcm_node_products_order ON pcm_node_products (store_id, node_id, list_order, product_id);
      CREATE INDEX pcm_node_products_product ON pcm_node_products (store_id, product_id, node_id);

      -- A node's products as its product list reads them (live only: the route scopes status).
      -- store_id comes from pcm_node_products, so a page is a range of its order index.
      CREATE VIEW pcm_node_product_list AS
        SELECT np.store_id AS store_id, np.node_id AS node_id, np.list_order AS list_order,
               np.curated_position AS curated_position, np.product_id AS id, p.name AS name,
               p.commodity_type AS commodity_type, p.sku AS sku, p.slug AS slug,
               p.status AS status, p.description AS description, p.upc_ean AS upc_ean,
               p.mpn AS mpn, p.external_ref AS external_ref, p.tags AS tags, p.extra AS extra,
               p.product_type AS product_type, p.parent_id AS parent_id,
               p.child_key AS child_key, p.detached_from AS detached_from,
               p.child_variations AS child_variations, p.price_modifiers AS price_modifiers,
               p.main_image_id AS main_image_id, p.files AS files,
               p.created_at AS created_at, p.updated_at AS updated_at
        FROM pcm_node_products np JOIN pcm_products p ON p.id = np.product_id;

      -- A product's nodes, with the product's status for the live-only rule.
      CREATE VIEW pcm_product_node_list AS
        SELECT np.store_id AS store_id, np.product_id AS product_id,
               p.status AS product_status, np.node_id AS id, n.hierarchy_id AS hierarchy_id,
               n.parent_id AS parent_id, n.name AS name, n.slug AS slug,
               n.description AS description, n.sort_order AS sort_order, n.extra AS extra,
               n.created_at AS created_at, n.updated_at AS updated_at
        FROM pcm_node_products np
        JOIN pcm_nodes n ON n.id = np.node_id
        JOIN pcm_products p ON p.id = np.product_id;
    `,
  },
  {
    // Price books (PXM, /pcm/pricebooks), their prices keyed by SKU and their price modifiers,
    // and stock (/v2/inventories) with its transactions and inventory locations. A price book's
    // prices and modifiers go with it (ON DELETE CASCADE), a product's transactions with its
    // stock. Currency maps, sales and custom attributes are stored as the JSON the API shows.
    // `stock` keeps total = available + allocated and neither below zero as CHECKs, behind the
    // conditional updates of inventory/stock.ts. Lists are read in creation order, so each has
    // (store_id[, parent], created_at, id) and (…, updated_at, id) indexes.
    id: '0720-pricebooks-and-stock',
    sql: `
      CREATE TABLE pricebooks (
        id TEXT PRIMARY KEY,
        store_id TEXT NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        description TEXT,
        external_ref TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX pricebooks_created ON pricebooks (store_id, created_at, id);
      CREATE INDEX pricebooks_updated ON pricebooks (store_id, updated_at, id);
      CREATE INDEX pricebooks_external_ref ON pricebooks (store_id, external_ref);

      CREATE TABLE prices (
        id TEXT PRIMARY KEY,
        store_id TEXT NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        pricebook_id TEXT NOT NULL REFERENCES pricebooks(id) ON DELETE CASCADE,
        sku TEXT NOT NULL,
        currencies TEXT NOT NULL,
        sales TEXT,
        external_ref TEXT,
        admin_attributes TEXT,
        shopper_attributes TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        -- One price per SKU in a book; also the index price resolution reads.
        UNIQUE (store_id, pricebook_id, sku)
      );
      CREATE INDEX prices_book_created ON prices (store_id, pricebook_id, created_at, id);
      CREATE INDEX prices_book_updated ON prices (store_id, pricebook_id, updated_at, id);
      CREATE INDEX prices_created ON prices (store_id, created_at, id);
      CREATE INDEX prices_updated ON prices (store_id, updated_at, id);
      CREATE INDEX prices_sku ON prices (store_id, sku);

      CREATE TABLE price_modifiers (
        id TEXT PRIMARY KEY,
        store_id TEXT NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        pricebook_id TEXT NOT NULL REFERENCES pricebooks(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        modifier_type TEXT NOT NULL
          CHECK (modifier_type IN ('price_increment', 'price_decrement', 'price_equals')),
        currencies TEXT NOT NULL,
        external_ref TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (store_id, pricebook_id, name)
      );
      CREATE INDEX price_modifiers_created
        ON price_modifiers (store_id, pricebook_id, created_at, id);
      CREATE INDEX price_modifiers_updated
        ON price_modifiers (store_id, pricebook_id, updated_at, id);

      CREATE TABLE stock (
        store_id TEXT NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        product_id TEXT NOT NULL,
        -- The multi-location form's meta.stock_id.
        stock_id TEXT NOT NULL,
        total INTEGER NOT NULL,
        available INTEGER NOT NULL CHECK (available >= 0),
        allocated INTEGER NOT NULL CHECK (allocated >= 0),
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (store_id, product_id),
        CHECK (total = available + allocated)
      );
      CREATE INDEX stock_created ON stock (store_id, created_at, product_id);
      CREATE INDEX stock_updated ON stock (store_id, updated_at, product_id);

      CREATE TABLE stock_transactions (
        id TEXT PRIMARY KEY,
        store_id TEXT NOT NULL,
        product_id TEXT NOT NULL,
        action TEXT NOT NULL
          CHECK (action IN ('increment', 'decrement', 'allocate', 'deallocate', 'set')),
        quantity INTEGER NOT NULL CHECK (quantity >= 0),
        created_at TEXT NOT NULL,
        FOREIGN KEY (store_id, product_id) REFERENCES stock (store_id, product_id)
          ON DELETE CASCADE
      );
      CREATE INDEX stock_transactions_created
        ON stock_transactions (store_id, product_id, created_at, id);

      CREATE TABLE inventory_locations (
        id TEXT PRIMARY KEY,
        store_id TEXT NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        slug TEXT NOT NULL,
        external_ref TEXT,
        description TEXT,
        address TEXT,
        geolocation TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (store_id, slug)
      );
      CREATE INDEX inventory_locations_created ON inventory_locations (store_id, created_at, id);
      CREATE INDEX inventory_locations_updated ON inventory_locations (store_id, updated_at, id);
    `,
  },
  {
    // Catalogs (/catalogs): which hierarchies and price books a storefront sees; catalog rules
    // (who sees which catalog); releases, each a read-only snapshot taken when published: the
    // hierarchies, nodes (with breadcrumbs), live products and the winning price of each SKU.
    // Shopper reads use only the release_* tables, so later PXM changes never alter a release.
    // A catalog a rule refers to cannot be deleted (no cascade from catalog_rules).
    id: '0730-catalogs',
    sql: `
      CREATE TABLE catalogs (
        id TEXT PRIMARY KEY,
        store_id TEXT NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        description TEXT,
        -- JSON array of hierarchy ids, in the catalog's order.
        hierarchy_ids TEXT NOT NULL,
        -- JSON [{id, priority}]; single_pricebook: the body used pricebook_id.
        pricebooks TEXT NOT NULL DEFAULT '[]',
        single_pricebook INTEGER NOT NULL DEFAULT 0,
        -- JSON object: locales, enable_price_segmentation.
        extra TEXT NOT NULL DEFAULT '{}',
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX catalogs_created ON catalogs (store_id, created_at, id);
      CREATE INDEX catalogs_updated ON catalogs (store_id, updated_at, id);

      CREATE TABLE catalog_rules (
        id TEXT PRIMARY KEY,
        store_id TEXT NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        catalog_id TEXT NOT NULL REFERENCES catalogs(id),
        description TEXT,
        -- JSON arrays of strings; schedules: [{valid_from, valid_to}]; pricebook_ids: [{id, priority}].
        account_ids TEXT NOT NULL DEFAULT '[]',
        account_tag_ids TEXT NOT NULL DEFAULT '[]',
        customer_ids TEXT NOT NULL DEFAULT '[]',
        channels TEXT NOT NULL DEFAULT '[]',
        tags TEXT NOT NULL DEFAULT '[]',
        schedules TEXT NOT NULL DEFAULT '[]',
        pricebook_ids TEXT NOT NULL DEFAULT '[]',
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX catalog_rules_created ON catalog_rules (store_id, created_at, id);
      CREATE INDEX catalog_rules_catalog ON catalog_rules (catalog_id);

      CREATE TABLE catalog_releases (
        id TEXT PRIMARY KEY,
        store_id TEXT NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        catalog_id TEXT NOT NULL REFERENCES catalogs(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        description TEXT,
        -- JSON [{id, label, name}] and the catalog's price books [{id, priority}] when published.
        hierarchies TEXT NOT NULL,
        pricebooks TEXT NOT NULL,
        release_status TEXT NOT NULL,
        total_products INTEGER NOT NULL,
        total_nodes INTEGER NOT NULL,
        published_at TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX catalog_releases_created ON catalog_releases (store_id, catalog_id, created_at, id);

      CREATE TABLE release_hierarchies (
        release_id TEXT NOT NULL REFERENCES catalog_releases(id) ON DELETE CASCADE,
        store_id TEXT NOT NULL,
        id TEXT NOT NULL,
        position INTEGER NOT NULL,
        name TEXT NOT NULL,
        slug TEXT,
        description TEXT,
        extra TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (release_id, id)
      );
      CREATE INDEX release_hierarchies_position ON release_hierarchies (release_id, position);

      CREATE TABLE release_nodes (
        release_id TEXT NOT NULL REFERENCES catalog_releases(id) ON DELETE CASCADE,
        store_id TEXT NOT NULL,
        id TEXT NOT NULL,
        hierarchy_id TEXT NOT NULL,
        -- '' for a top-level node.
        parent_key TEXT NOT NULL,
        -- Place in the release: hierarchy order, then depth-first with children as PXM orders them.
        position INTEGER NOT NULL,
        name TEXT NOT NULL,
        slug TEXT,
        description TEXT,
        extra TEXT NOT NULL,
        -- JSON array: the node's ancestors from the top, then the node.
        bread_crumb TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (release_id, id)
      );
      CREATE INDEX release_nodes_position ON release_nodes (release_id, position);
      CREATE INDEX release_nodes_hierarchy ON release_nodes (release_id, hierarchy_id, position);
      CREATE INDEX release_nodes_parent ON release_nodes (release_id, parent_key, position);

      CREATE TABLE release_products (
        release_id TEXT NOT NULL REFERENCES catalog_releases(id) ON DELETE CASCADE,
        store_id TEXT NOT NULL,
        id TEXT NOT NULL,
        position INTEGER NOT NULL,
        name TEXT NOT NULL,
        commodity_type TEXT NOT NULL,
        sku TEXT,
        slug TEXT,
        description TEXT,
        upc_ean TEXT,
        mpn TEXT,
        external_ref TEXT,
        tags TEXT NOT NULL,
        extra TEXT NOT NULL,
        product_type TEXT NOT NULL,
        parent_id TEXT,
        child_variations TEXT,
        price_modifiers TEXT NOT NULL,
        main_image_id TEXT,
        files TEXT NOT NULL,
        -- JSON: {nodeId: [ancestor ids…, nodeId]} of the nodes the product sits in.
        bread_crumbs TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        parent_key TEXT GENERATED ALWAYS AS (COALESCE(parent_id, '')) VIRTUAL,
        PRIMARY KEY (release_id, id)
      );
      CREATE INDEX release_products_position ON release_products (release_id, position);
      CREATE INDEX release_products_parent ON release_products (release_id, parent_key, position);
      CREATE INDEX release_products_sku ON release_products (release_id, sku);
      CREATE INDEX release_products_slug ON release_products (release_id, slug);

      CREATE TABLE release_node_products (
        release_id TEXT NOT NULL REFERENCES catalog_releases(id) ON DELETE CASCADE,
        store_id TEXT NOT NULL,
        node_id TEXT NOT NULL,
        hierarchy_id TEXT NOT NULL,
        product_id TEXT NOT NULL,
        -- Curated first, then newest first, as the node lists them in PXM.
        position INTEGER NOT NULL,
        PRIMARY KEY (release_id, node_id, product_id)
      );
      CREATE INDEX release_node_products_node ON release_node_products (release_id, node_id, position);
      CREATE INDEX release_node_products_hierarchy
        ON release_node_products (release_id, hierarchy_id, product_id);

      CREATE TABLE release_prices (
        release_id TEXT NOT NULL REFERENCES catalog_releases(id) ON DELETE CASCADE,
        store_id TEXT NOT NULL,
        sku TEXT NOT NULL,
        price_id TEXT NOT NULL,
        pricebook_id TEXT NOT NULL,
        currencies TEXT NOT NULL,
        sales TEXT,
        PRIMARY KEY (release_id, sku)
      );
      -- The products of each hierarchy of a release (in any of its nodes), once each.
      CREATE TABLE release_hierarchy_products (
        release_id TEXT NOT NULL REFERENCES catalog_releases(id) ON DELETE CASCADE,
        store_id TEXT NOT NULL,
        hierarchy_id TEXT NOT NULL,
        product_id TEXT NOT NULL,
        position INTEGER NOT NULL,
        PRIMARY KEY (release_id, hierarchy_id, product_id)
      );
      CREATE INDEX release_hierarchy_products_position
        ON release_hierarchy_products (release_id, hierarchy_id, position);

      -- A node's and a hierarchy's products as their lists read them: the product's columns
      -- with the link's scope and order (link_position).
      CREATE VIEW release_node_product_list AS
        SELECT np.release_id AS release_id, np.store_id AS store_id, np.node_id AS node_id,
               np.position AS link_position,
               p.id AS id, p.position AS position, p.name AS name, p.commodity_type AS
               commodity_type, p.sku AS sku, p.slug AS slug, p.description AS
               description, p.upc_ean AS upc_ean, p.mpn AS mpn, p.external_ref AS
               external_ref, p.tags AS tags, p.extra AS extra, p.product_type AS
               product_type, p.parent_id AS parent_id, p.child_variations AS
               child_variations, p.price_modifiers AS price_modifiers, p.main_image_id
               AS main_image_id, p.files AS files, p.bread_crumbs AS bread_crumbs,
               p.created_at AS created_at, p.updated_at AS updated_at
        FROM release_node_products np
        JOIN release_products p ON p.release_id = np.release_id AND p.id = np.product_id;
      CREATE VIEW release_hierarchy_product_list AS
        SELECT hp.release_id AS release_id, hp.store_id AS store_id,
               hp.hierarchy_id AS hierarchy_id, hp.position AS link_position,
               p.id AS id, p.position AS position, p.name AS name, p.commodity_type AS
               commodity_type, p.sku AS sku, p.slug AS slug, p.description AS
               description, p.upc_ean AS upc_ean, p.mpn AS mpn, p.external_ref AS
               external_ref, p.tags AS tags, p.extra AS extra, p.product_type AS
               product_type, p.parent_id AS parent_id, p.child_variations AS
               child_variations, p.price_modifiers AS price_modifiers, p.main_image_id
               AS main_image_id, p.files AS files, p.bread_crumbs AS bread_crumbs,
               p.created_at AS created_at, p.updated_at AS updated_at
        FROM release_hierarchy_products hp
        JOIN release_products p ON p.release_id = hp.release_id AND p.id = hp.product_id;

      -- A catalog product in a cart (type cart_item): the product and the catalog it came from.
      ALTER TABLE cart_items ADD COLUMN product_id TEXT;
      ALTER TABLE cart_items ADD COLUMN catalog_id TEXT;
    `,
  },
  {
    // Promotions of both engines in one table (`kind`: 'standard' for /v2/promotions, 'rule' for
    // /v2/rule-promotions); what the cart engine reads (the discount, its targets, its condition)
    // is normalised into columns at write time, and the body as the client sent it is kept in
    // `document` for reads. Codes are unique per promotion by `code_key` (lower case: rule
    // promotion codes are case-insensitive, and a standard code typed in another case is the same
    // code to a shopper). `used` counts checkouts; `max_uses` NULL means unlimited. A cart's
    // applied codes live in cart_promotion_codes until removed or the cart is deleted. A usage is
    // written by checkout; its created_at is its used_on, so lists sort and keyset on it.
    id: '0800-promotions',
    sql: `
      CREATE TABLE promotions (
        id TEXT PRIMARY KEY,
        store_id TEXT NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        kind TEXT NOT NULL CHECK (kind IN ('standard', 'rule')),
        name TEXT NOT NULL,
        enabled INTEGER NOT NULL CHECK (enabled IN (0, 1)),
        automatic INTEGER NOT NULL CHECK (automatic IN (0, 1)),
        starts_at TEXT NOT NULL,
        ends_at TEXT NOT NULL,
        priority INTEGER NOT NULL DEFAULT 0,
        stackable INTEGER NOT NULL DEFAULT 1,
        override_stacking INTEGER NOT NULL DEFAULT 0,
        offer TEXT NOT NULL,
        document TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX promotions_created ON promotions (store_id, kind, created_at, id);
      CREATE INDEX promotions_updated ON promotions (store_id, kind, updated_at, id);
      CREATE INDEX promotions_id ON promotions (store_id, kind, id);

      CREATE TABLE promotion_codes (
        id TEXT PRIMARY KEY,
        store_id TEXT NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        promotion_id TEXT NOT NULL REFERENCES promotions(id) ON DELETE CASCADE,
        code TEXT NOT NULL,
        code_key TEXT NOT NULL,
        max_uses INTEGER,
        used INTEGER NOT NULL DEFAULT 0,
        max_uses_per_shopper INTEGER,
        includes_guests INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (promotion_id, code_key)
      );
      CREATE INDEX promotion_codes_key ON promotion_codes (store_id, code_key);
      CREATE INDEX promotion_codes_list ON promotion_codes (store_id, promotion_id, created_at, id);

      CREATE TABLE cart_promotion_codes (
        cart_id TEXT NOT NULL REFERENCES carts(id) ON DELETE CASCADE,
        code_id TEXT NOT NULL REFERENCES promotion_codes(id) ON DELETE CASCADE,
        created_at TEXT NOT NULL,
        PRIMARY KEY (cart_id, code_id)
      );

      CREATE TABLE promotion_usages (
        id TEXT PRIMARY KEY,
        store_id TEXT NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        promotion_id TEXT NOT NULL REFERENCES promotions(id) ON DELETE CASCADE,
        code_id TEXT,
        code TEXT NOT NULL,
        code_key TEXT NOT NULL,
        order_id TEXT NOT NULL,
        customer_id TEXT,
        customer_email TEXT,
        times_used INTEGER NOT NULL DEFAULT 1,
        anonymized INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX promotion_usages_created
        ON promotion_usages (store_id, promotion_id, created_at, id);
      CREATE INDEX promotion_usages_updated
        ON promotion_usages (store_id, promotion_id, updated_at, id);
      CREATE INDEX promotion_usages_id ON promotion_usages (store_id, promotion_id, id);
      CREATE INDEX promotion_usages_code
        ON promotion_usages (store_id, promotion_id, code_key, created_at, id);
      CREATE INDEX promotion_usages_shopper ON promotion_usages (code_id, customer_id);
    `,
  },
  {
    // Integrations (webhooks) and their outbox: a job is one event's delivery to one
    // integration, written in the transaction of the change that caused the event; the
    // deliverer attempts it until it succeeds or runs out of attempts, a log row per attempt.
    id: '0820-integrations',
    sql: `
      CREATE TABLE integrations (
        id TEXT PRIMARY KEY,
        store_id TEXT NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        description TEXT,
        enabled INTEGER NOT NULL CHECK (enabled IN (0, 1)),
        integration_type TEXT NOT NULL CHECK (integration_type IN ('webhook', 'aws_sqs', 'stomp')),
        -- JSON array of event names.
        observes TEXT NOT NULL,
        -- JSON object, secrets included: never presented as stored (integrations/present.ts).
        configuration TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX integrations_created ON integrations (store_id, created_at, id);
      CREATE INDEX integrations_updated ON integrations (store_id, updated_at, id);
      CREATE INDEX integrations_id ON integrations (store_id, id);

      CREATE TABLE integration_jobs (
        id TEXT PRIMARY KEY,
        store_id TEXT NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        integration_id TEXT NOT NULL REFERENCES integrations(id) ON DELETE CASCADE,
        triggered_by TEXT NOT NULL,
        -- JSON {data, included}: the resource as it was when the event happened.
        payload TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
        attempts INTEGER NOT NULL DEFAULT 0,
        -- Epoch ms of the next attempt while pending.
        next_attempt_at INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX integration_jobs_due ON integration_jobs (next_attempt_at) WHERE status = 'pending';
      CREATE INDEX integration_jobs_created ON integration_jobs (store_id, integration_id, created_at, id);

      CREATE TABLE integration_logs (
        id TEXT PRIMARY KEY,
        store_id TEXT NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        integration_id TEXT NOT NULL REFERENCES integrations(id) ON DELETE CASCADE,
        job_id TEXT NOT NULL REFERENCES integration_jobs(id) ON DELETE CASCADE,
        attempt INTEGER NOT NULL,
        succeeded INTEGER NOT NULL CHECK (succeeded IN (0, 1)),
        status_code INTEGER,
        -- The receiver's answer, cut to 1,000 characters.
        body TEXT,
        error_detail TEXT,
        -- How long the attempt took, ms.
        processing_time INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX integration_logs_store ON integration_logs (store_id, created_at, id);
      CREATE INDEX integration_logs_integration
        ON integration_logs (store_id, integration_id, created_at, id);
      CREATE INDEX integration_logs_job ON integration_logs (store_id, job_id, created_at, id);
    `,
  },
  {
    // Order exports (/v2/jobs): queued by the request, run in the background, the file kept
    // with the job.
    id: '0830-jobs',
    sql: `
      CREATE TABLE export_jobs (
        id TEXT PRIMARY KEY,
        store_id TEXT NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        job_type TEXT NOT NULL CHECK (job_type IN ('order_export')),
        status TEXT NOT NULL CHECK (status IN ('pending', 'processing', 'complete', 'failed')),
        filter TEXT,
        file TEXT,
        error TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX export_jobs_created ON export_jobs (store_id, created_at, id);
      CREATE INDEX export_jobs_updated ON export_jobs (store_id, updated_at, id);
      CREATE INDEX export_jobs_id ON export_jobs (store_id, id);
      CREATE INDEX export_jobs_pending ON export_jobs (created_at) WHERE status IN ('pending', 'processing');
    `,
  },
  {
    // The catalog product of an order line (null for a custom item), so that paying the order
    // can allocate its stock (orders/payments-routes.ts).
    id: '0840-order-item-products',
    sql: `
      ALTER TABLE order_items ADD COLUMN product_id TEXT;
    `,
  },
  {
    // B2B account members (production's account management): the store's account-authentication
    // realm is derived from the store id (account-members.ts), so it has no row; its password
    // profiles, its user-authentication-info records (each one is an account member and shares
    // its id), their username/password per profile (scrypt hashes, never returned), the
    // memberships of members in accounts, and account tokens (sha256 of the token, like
    // customer tokens). Deleting an account deletes its memberships, tokens and carts; deleting a
    // member deletes their credentials, memberships and tokens. Carts and orders gain the account
    // (and the order its member) they belong to; an order keeps them when the account goes, as
    // orders keep their customer.
    id: '0850-account-members',
    sql: `
      CREATE TABLE password_profiles (
        id TEXT PRIMARY KEY,
        store_id TEXT NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        realm_id TEXT NOT NULL,
        name TEXT NOT NULL,
        username_format TEXT NOT NULL CHECK (username_format IN ('any', 'email')),
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX password_profiles_created ON password_profiles (store_id, realm_id, created_at, id);
      CREATE INDEX password_profiles_updated ON password_profiles (store_id, realm_id, updated_at, id);
      CREATE INDEX password_profiles_id ON password_profiles (store_id, realm_id, id);

      CREATE TABLE user_authentication_info (
        id TEXT PRIMARY KEY,
        store_id TEXT NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        realm_id TEXT NOT NULL,
        -- Docs create with {name, email}, the 2026 spec with {username}: either is kept.
        name TEXT,
        email TEXT,
        username TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX user_authentication_info_created
        ON user_authentication_info (store_id, realm_id, created_at, id, updated_at);
      CREATE INDEX user_authentication_info_updated
        ON user_authentication_info (store_id, realm_id, updated_at, id, created_at);
      CREATE INDEX user_authentication_info_id
        ON user_authentication_info (store_id, realm_id, id, created_at, updated_at);

      CREATE TABLE user_authentication_password_profile_info (
        id TEXT PRIMARY KEY,
        store_id TEXT NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        user_authentication_info_id TEXT NOT NULL
          REFERENCES user_authentication_info(id) ON DELETE CASCADE,
        password_profile_id TEXT NOT NULL REFERENCES password_profiles(id) ON DELETE CASCADE,
        username TEXT NOT NULL,
        -- lower(username): usernames are unique per profile whatever their case.
        username_key TEXT NOT NULL,
        -- 'scrypt$N$r$p$<salt b64>$<hash b64>' (customers.ts).
        password_hash TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (password_profile_id, username_key),
        UNIQUE (user_authentication_info_id, password_profile_id)
      );
      CREATE INDEX uappi_created
        ON user_authentication_password_profile_info (store_id, user_authentication_info_id, created_at, id);

      CREATE TABLE account_memberships (
        id TEXT PRIMARY KEY,
        store_id TEXT NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        account_member_id TEXT NOT NULL REFERENCES user_authentication_info(id) ON DELETE CASCADE,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (account_id, account_member_id)
      );
      CREATE INDEX account_memberships_created
        ON account_memberships (store_id, account_id, created_at, id, updated_at);
      CREATE INDEX account_memberships_updated
        ON account_memberships (store_id, account_id, updated_at, id, created_at);
      CREATE INDEX account_memberships_member
        ON account_memberships (account_member_id, created_at, id);

      CREATE TABLE account_tokens (
        token_hash TEXT PRIMARY KEY,
        store_id TEXT NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        account_member_id TEXT NOT NULL REFERENCES user_authentication_info(id) ON DELETE CASCADE,
        account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        expires_at INTEGER NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX account_tokens_expiry ON account_tokens (expires_at);
      CREATE INDEX account_tokens_member ON account_tokens (account_member_id);
      CREATE INDEX account_tokens_account ON account_tokens (account_id);

      ALTER TABLE carts ADD COLUMN account_id TEXT REFERENCES accounts(id) ON DELETE CASCADE;
      CREATE INDEX carts_account ON carts (account_id);
      CREATE INDEX carts_account_created ON carts (store_id, account_id, created_at, id, updated_at);
      CREATE INDEX carts_account_updated ON carts (store_id, account_id, updated_at, id, created_at);

      ALTER TABLE orders ADD COLUMN account_id TEXT;
      ALTER TABLE orders ADD COLUMN account_member_id TEXT;
      -- One index for an account's orders, newest first (the list's default): a B2B account's
      -- orders are few next to the store's, so the other sorts scan them without a seek.
      CREATE INDEX orders_account_created
        ON orders (store_id, account_id, created_at, id, updated_at);
    `,
  },
  {
    // The prices of every price book a catalog rule of the catalog names, snapshotted at publish
    // beside the catalog's own winners (release_prices), so that a shopper whose winning rule has
    // pricebook_ids is priced from the release too: per SKU, one row per book that has it.
    id: '0855-release-book-prices',
    sql: `
      CREATE TABLE release_book_prices (
        release_id TEXT NOT NULL REFERENCES catalog_releases(id) ON DELETE CASCADE,
        store_id TEXT NOT NULL,
        pricebook_id TEXT NOT NULL,
        sku TEXT NOT NULL,
        price_id TEXT NOT NULL,
        currencies TEXT NOT NULL,
        sales TEXT,
        PRIMARY KEY (release_id, sku, pricebook_id)
      );
    `,
  },
  {
    // A catalog line is repriced from the catalog it was added through on every read, write and
    // checkout (carts/reprice.ts); the catalog rule that chose that catalog for the shopper is
    // kept beside catalog_id (null for the default catalog, and for lines added before this), so
    // a rule's own pricing context stays the line's after the add.
    id: '0860-cart-item-catalog-rule',
    sql: `
      ALTER TABLE cart_items ADD COLUMN catalog_rule_id TEXT;
    `,
  },
  {
    // The deliverer reads each integration's due jobs apart (integrations/deliverer.ts: a cap
    // per integration and per store, so one store's bad receiver only delays its own events).
    id: '0870-integration-jobs-due-per-integration',
    sql: `
      CREATE INDEX integration_jobs_due_integration
        ON integration_jobs (integration_id, next_attempt_at) WHERE status = 'pending';
    `,
  },
  {
    // Address books (addresses/): each address belongs to one account or one customer and goes
    // with it. Lists read an owner's addresses in creation order.
    id: '0880-addresses',
    sql: `
      CREATE TABLE addresses (
        id TEXT PRIMARY KEY,
        store_id TEXT NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        account_id TEXT REFERENCES accounts(id) ON DELETE CASCADE,
        customer_id TEXT REFERENCES customers(id) ON DELETE CASCADE,
        name TEXT,
        first_name TEXT,
        last_name TEXT,
        company_name TEXT,
        phone_number TEXT,
        line_1 TEXT,
        line_2 TEXT,
        city TEXT,
        county TEXT,
        region TEXT,
        postcode TEXT,
        country TEXT,
        instructions TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        CHECK ((account_id IS NULL) <> (customer_id IS NULL))
      );
      CREATE INDEX addresses_account_created ON addresses (store_id, account_id, created_at, id);
      CREATE INDEX addresses_account_updated ON addresses (store_id, account_id, updated_at, id);
      CREATE INDEX addresses_account_id ON addresses (store_id, account_id, id);
      CREATE INDEX addresses_customer_created ON addresses (store_id, customer_id, created_at, id);
      CREATE INDEX addresses_customer_updated ON addresses (store_id, customer_id, updated_at, id);
      CREATE INDEX addresses_customer_id ON addresses (store_id, customer_id, id);
    `,
  },
  {
    // The store's account-authentication settings (account-members.ts): no row means the
    // defaults (self sign-up off, tokens for 24 h).
    id: '0890-account-authentication-settings',
    sql: `
      CREATE TABLE account_authentication_settings (
        store_id TEXT PRIMARY KEY REFERENCES stores(id) ON DELETE CASCADE,
        enable_self_signup INTEGER NOT NULL CHECK (enable_self_signup IN (0, 1)),
        auto_create_account_for_account_members INTEGER NOT NULL
          CHECK (auto_create_account_for_account_members IN (0, 1)),
        account_member_self_management TEXT NOT NULL
          CHECK (account_member_self_management IN ('disabled', 'update_only')),
        token_timeout_secs INTEGER NOT NULL CHECK (token_timeout_secs BETWEEN 60 AND 31536000),
        updated_at TEXT NOT NULL
      );
    `,
  },
  {
    // Catalog Search (search/): the index of a release of a search-enabled catalog, built when
    // it is published and gone with it. search_indexes holds the release's columns for
    // filters, facets and sorts (one JSON document, loaded once per release) and the range of
    // docids its products have in the two full-text tables: search_text stems (porter) for
    // whole words, search_prefix does not, for the word being typed (its vocabulary,
    // search_words, is where typo tolerance looks for near words). Both are contentless;
    // contentless_delete lets the release's rows go when the index row goes (trigger).
    id: '0900-catalog-search',
    sql: `
      CREATE TABLE search_indexes (
        release_id TEXT PRIMARY KEY REFERENCES catalog_releases(id) ON DELETE CASCADE,
        store_id TEXT NOT NULL,
        catalog_id TEXT NOT NULL,
        -- The release's products are docids first_docid .. first_docid + documents - 1.
        first_docid INTEGER NOT NULL,
        documents INTEGER NOT NULL,
        -- JSON: the columns (search/build.ts).
        columns TEXT NOT NULL,
        duration_ms INTEGER NOT NULL,
        built_at TEXT NOT NULL
      );
      CREATE INDEX search_indexes_docids ON search_indexes (first_docid);
      CREATE VIRTUAL TABLE search_text USING fts5(
        name, description, sku, slug, custom,
        content='', contentless_delete=1,
        tokenize='porter unicode61 remove_diacritics 2', prefix='2 3'
      );
      CREATE VIRTUAL TABLE search_prefix USING fts5(
        words,
        content='', contentless_delete=1,
        tokenize='unicode61 remove_diacritics 2', prefix='1 2 3 4'
      );
      CREATE VIRTUAL TABLE search_words USING fts5vocab(search_prefix, 'row');
      CREATE TRIGGER search_indexes_gone AFTER DELETE ON search_indexes BEGIN
        DELETE FROM search_text
          WHERE rowid >= old.first_docid AND rowid < old.first_docid + old.documents;
        DELETE FROM search_prefix
          WHERE rowid >= old.first_docid AND rowid < old.first_docid + old.documents;
      END;
    `,
  },
  {
    // Variations in the shopper catalog (catalogs/variations.ts): a parent's variations and
    // variation matrix, frozen when the release is published, as the rest of a release is.
    // Bundles in carts and orders (carts/bundles.ts): the shopper's selected options, kept on
    // the line (a bundle without a SKU is priced from them) and copied to the order's line.
    id: '0905-catalog-variations-and-bundles',
    sql: `
      CREATE TABLE release_product_variations (
        release_id TEXT NOT NULL REFERENCES catalog_releases(id) ON DELETE CASCADE,
        store_id TEXT NOT NULL,
        product_id TEXT NOT NULL,
        -- JSON: [{id, name, sort_order?, options: [{id, name, description, sort_order?}]}]
        variations TEXT NOT NULL,
        -- JSON: {optionId: {optionId: … childId}}, one level per variation, in their order.
        variation_matrix TEXT NOT NULL,
        PRIMARY KEY (release_id, product_id)
      );
      -- JSON {"selected_options": {component: {productId: quantity}}}; NULL: not a bundle.
      ALTER TABLE cart_items ADD COLUMN bundle_configuration TEXT;
      ALTER TABLE order_items ADD COLUMN bundle_configuration TEXT;
    `,
  },
  {
    // The store's currencies (currencies/): their format templates decide every `formatted`
    // price string of the store (money.ts). At most one default per store; app.ts gives every
    // store a USD default when it has none.
    id: '0910-currencies',
    sql: `
      CREATE TABLE currencies (
        id TEXT PRIMARY KEY,
        store_id TEXT NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        code TEXT NOT NULL,
        exchange_rate REAL NOT NULL,
        format TEXT NOT NULL,
        decimal_point TEXT NOT NULL,
        thousand_separator TEXT NOT NULL,
        decimal_places INTEGER NOT NULL,
        is_default INTEGER NOT NULL CHECK (is_default IN (0, 1)),
        enabled INTEGER NOT NULL CHECK (enabled IN (0, 1)),
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (store_id, code)
      );
      CREATE UNIQUE INDEX currencies_one_default ON currencies (store_id) WHERE is_default = 1;
      CREATE INDEX currencies_created ON currencies (store_id, created_at, id);
      CREATE INDEX currencies_updated ON currencies (store_id, updated_at, id);
      CREATE INDEX currencies_id ON currencies (store_id, id);
    `,
  },
  {
    // Catalog Search reads stock live (search/stock-column.ts): stock moves after a release is
    // published, so it cannot be frozen in the release's index. Each store's stock version goes
    // up with every stock write, whoever writes it (routes, orders, seeds, a store's deletion),
    // and the product it moved is logged under that version; a search keeps an in-memory stock
    // column per release and, when the version moved, re-reads only the logged products (the
    // last STOCK_CHANGES_KEPT of them; a column further behind is rebuilt whole).
    id: '0915-search-stock-versions',
    sql: `
      CREATE TABLE stock_versions (
        store_id TEXT PRIMARY KEY REFERENCES stores(id) ON DELETE CASCADE,
        version INTEGER NOT NULL
      );
      CREATE TABLE stock_changes (
        store_id TEXT NOT NULL REFERENCES stock_versions(store_id) ON DELETE CASCADE,
        version INTEGER NOT NULL,
        product_id TEXT NOT NULL,
        PRIMARY KEY (store_id, version)
      ) WITHOUT ROWID;
      ${['INSERT', 'UPDATE OF available', 'DELETE']
        .map((event) => {
          const row = event === 'DELETE' ? 'old' : 'new';
          const name = event.split(' ')[0]?.toLowerCase();
          return `CREATE TRIGGER stock_version_${name} AFTER ${event} ON stock
        WHEN EXISTS (SELECT 1 FROM stores WHERE id = ${row}.store_id) BEGIN
        INSERT INTO stock_versions (store_id, version) VALUES (${row}.store_id, 1)
          ON CONFLICT (store_id) DO UPDATE SET version = version + 1;
        INSERT INTO stock_changes (store_id, version, product_id)
          SELECT store_id, version, ${row}.product_id FROM stock_versions
          WHERE store_id = ${row}.store_id;
        DELETE FROM stock_changes WHERE store_id = ${row}.store_id AND version <=
          (SELECT version FROM stock_versions WHERE store_id = ${row}.store_id) - 1000;
      END;`;
        })
        .join('\n      ')}
    `,
  },
];
