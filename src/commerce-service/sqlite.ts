/**
 * The service's SQLite, on Node's built-in `node:sqlite` (no native module to compile or
 * download), behind the small part of better-sqlite3's API the service was written against:
 * prepared statements with `get`/`all`/`run`/`iterate` and `pluck`, `transaction(fn)` with
 * nesting by savepoints and an `immediate` variant, `pragma`, `exec`, `inTransaction`.
 *
 * Why not better-sqlite3 13 (prebuilt Node-API binaries): side by side on Node 22, the service
 * answered a 100-order page at offset 5,000 with 1.5× the CPU of better-sqlite3 12 and
 * created entries with 1.4×, while node:sqlite matched or beat 12 (bench/service-throughput.ts;
 * figures in docs/benchmarks.md).
 */
import { createRequire } from 'node:module';
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';

const require = createRequire(import.meta.url);

/**
 * Node 22 marks node:sqlite experimental and warns once on load; the warning is about the
 * module's API stability, which this adapter pins, not about the data. Only that one warning
 * is dropped; any other passes through.
 */
function loadSqlite(): typeof import('node:sqlite') {
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (/SQLite is an experimental feature/.test(text)) return;
    (emit as (w: string | Error, ...r: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return require('node:sqlite') as typeof import('node:sqlite');
  } finally {
    process.emitWarning = emit;
  }
}
const sqlite = loadSqlite();

export interface RunResult {
  changes: number | bigint;
  lastInsertRowid: number | bigint;
}

type Params = unknown[];

/** better-sqlite3 binds an array argument as that many positional values; so does this. */
function bindable(params: Params): SQLInputValue[] {
  return (params.length === 1 && Array.isArray(params[0]) ? params[0] : params) as SQLInputValue[];
}

/**
 * Integers beyond ±2^53 come back as the nearest number, as better-sqlite3 returned them (money
 * amounts that large are stored, and formatted exactly from the text of the request elsewhere);
 * node:sqlite throws for them instead, so such a read is repeated reading BigInts.
 */
function readLargeIntegers<T>(statement: StatementSync, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ERR_OUT_OF_RANGE') throw error;
    statement.setReadBigInts(true);
    try {
      return toNumbers(read());
    } finally {
      statement.setReadBigInts(false);
    }
  }
}

function toNumbers<T>(value: T): T {
  if (typeof value === 'bigint') return Number(value) as T;
  if (Array.isArray(value)) return value.map(toNumbers) as T;
  if (value !== null && typeof value === 'object' && !(value instanceof Uint8Array)) {
    const row = value as Record<string, unknown>;
    for (const key in row) row[key] = toNumbers(row[key]);
  }
  return value;
}

function firstColumn(row: Record<string, unknown> | undefined): unknown {
  if (row === undefined) return undefined;
  for (const key in row) return row[key];
  return undefined;
}

/** A prepared statement. `pluck()` makes `get`/`all`/`iterate` return the first column only. */
export class Statement<P extends Params = Params> {
  readonly #statement: StatementSync;
  #pluck = false;

  constructor(statement: StatementSync) {
    this.#statement = statement;
    // Callers pass one object of named values to statements that use only some of them.
    this.#statement.setAllowUnknownNamedParameters(true);
  }

  pluck(on = true): this {
    this.#pluck = on;
    return this;
  }

  run(...params: P): RunResult {
    return this.#statement.run(...bindable(params));
  }

  get(...params: P): unknown {
    const statement = this.#statement;
    const row = readLargeIntegers(statement, () => statement.get(...bindable(params))) as
      | Record<string, unknown>
      | undefined;
    return this.#pluck ? firstColumn(row) : row;
  }

  all(...params: P): unknown[] {
    const statement = this.#statement;
    const rows = readLargeIntegers(statement, () => statement.all(...bindable(params))) as Record<
      string,
      unknown
    >[];
    return this.#pluck ? rows.map(firstColumn) : rows;
  }

  *iterate(...params: P): IterableIterator<unknown> {
    for (const row of this.#statement.iterate(...bindable(params))) {
      yield this.#pluck ? firstColumn(row as Record<string, unknown>) : row;
    }
  }
}

type Transactional<A extends unknown[], R> = ((...args: A) => R) & {
  /** BEGIN IMMEDIATE: takes the write lock before the first read. */
  immediate(...args: A): R;
  deferred(...args: A): R;
  exclusive(...args: A): R;
};

export class Database {
  readonly #db: DatabaseSync;
  /** Nesting depth of transaction() calls in progress (savepoints beyond the first). */
  #depth = 0;

  constructor(path: string) {
    this.#db = new sqlite.DatabaseSync(path);
  }

  get inTransaction(): boolean {
    return this.#db.isTransaction;
  }

  prepare<P extends Params = Params>(sql: string): Statement<P> {
    return new Statement<P>(this.#db.prepare(sql));
  }

  exec(sql: string): this {
    this.#db.exec(sql);
    return this;
  }

  /** `PRAGMA source`: its rows, or with `simple` the first column of the first row. */
  pragma(source: string, options: { simple?: boolean } = {}): unknown {
    const rows = this.#db.prepare(`PRAGMA ${source}`).all() as Record<string, unknown>[];
    return options.simple ? firstColumn(rows[0]) : rows;
  }

  close(): void {
    this.#db.close();
  }

  /**
   * `fn` wrapped in a transaction: committed when it returns, rolled back when it throws.
   * Called inside another transaction it runs in a savepoint, so an inner failure undoes only
   * its own writes. `fn` must be synchronous: SQLite's transaction cannot span an await.
   */
  transaction<A extends unknown[], R>(fn: (...args: A) => R): Transactional<A, R> {
    const run =
      (begin: string) =>
      (...args: A): R => {
        const nested = this.#db.isTransaction;
        const savepoint = `tx_${this.#depth}`;
        this.#db.exec(nested ? `SAVEPOINT ${savepoint}` : begin);
        this.#depth += 1;
        let result: R;
        try {
          result = fn(...args);
          if (result instanceof Promise) {
            throw new TypeError('A transaction function must not return a promise');
          }
        } catch (error) {
          this.#depth -= 1;
          if (nested) {
            this.#db.exec(`ROLLBACK TO ${savepoint}`);
            this.#db.exec(`RELEASE ${savepoint}`);
          } else if (this.#db.isTransaction) {
            this.#db.exec('ROLLBACK');
          }
          throw error;
        }
        this.#depth -= 1;
        this.#db.exec(nested ? `RELEASE ${savepoint}` : 'COMMIT');
        return result;
      };
    return Object.assign(run('BEGIN'), {
      immediate: run('BEGIN IMMEDIATE'),
      deferred: run('BEGIN DEFERRED'),
      exclusive: run('BEGIN EXCLUSIVE'),
    });
  }
}
