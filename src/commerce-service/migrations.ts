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
    // once, by its writer, and stored (routes/orders.ts serves the text). The orders already
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
];
