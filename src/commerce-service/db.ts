/** Opening the service's SQLite database and bringing its schema up to date. */

import { migrations as defaultMigrations, type Migration } from './migrations.ts';
import { Database, type Statement } from './sqlite.ts';

export type Db = Database;

/**
 * Opens (creating if needed) the database at `path` (`:memory:` allowed), with WAL journaling,
 * foreign keys enforced and a busy timeout so a second process (the seed CLI) waits instead of
 * failing, then applies pending migrations. The caller creates the parent directory.
 */
export function openDatabase(path: string, migrations: Migration[] = defaultMigrations): Db {
  const db = new Database(path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    applyMigrations(db, migrations);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/**
 * Applies, in list order, every migration not yet recorded in `schema_migrations`, each in its
 * own transaction together with its record, so a failing migration leaves no trace.
 * Returns the ids applied by this call.
 */
export function applyMigrations(db: Db, migrations: Migration[]): string[] {
  const seen = new Set<string>();
  for (const m of migrations) {
    if (seen.has(m.id)) throw new Error(`Migration id ${m.id} appears twice`);
    seen.add(m.id);
  }
  db.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at TEXT NOT NULL)',
  );
  const applied = new Set(
    db
      .prepare('SELECT id FROM schema_migrations')
      .pluck()
      .all()
      .map((id) => String(id)),
  );
  const record = db.prepare('INSERT INTO schema_migrations (id, applied_at) VALUES (?, ?)');
  const ran: string[] = [];
  for (const migration of migrations) {
    if (applied.has(migration.id)) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      record.run(migration.id, new Date().toISOString());
    })();
    ran.push(migration.id);
  }
  return ran;
}

const statementCache = new WeakMap<Db, Map<string, Statement<unknown[]>>>();

/**
 * A prepared statement for `sql`, compiled once per connection. For SQL whose text is built
 * from a bounded set of shapes (values always bound), so the cache stays small; it is cleared
 * past 1,000 entries as a safety net.
 */
export function cachedStatement(db: Db, sql: string): Statement<unknown[]> {
  let cache = statementCache.get(db);
  if (!cache) {
    cache = new Map();
    statementCache.set(db, cache);
  }
  let statement = cache.get(sql);
  if (!statement) {
    if (cache.size > 1000) cache.clear();
    statement = db.prepare(sql);
    cache.set(sql, statement);
  }
  return statement;
}
