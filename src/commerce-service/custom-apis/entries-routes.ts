/**
 * Custom API entries (seed endpoint 1 and everything around it), served at two mount points by
 * the same handlers:
 *   /v2/settings/extensions/custom-apis/{customApiId}/entries[/{entryId}]
 *   /v2/extensions/{slug}[/{entryId}]
 *
 * Request `{"data":{"type":"wishlist_ext","name":"…",…}}`: flat, every key of data except the
 * reserved ones is an attribute. `data_size` is the sum over attributes of the UTF-8 byte length
 * of the value: a string counts its own bytes, any other value the bytes of its JSON text
 * (`0` → 1, `true` → 4, `null` → 4, `[1,2]` → 5). Keys do not count. More than 65,536 → 413 and
 * nothing is stored. Every write bumps `resource_version` and computes a new `etag_id`; `If-Match`
 * is checked inside the same SQLite transaction as the write, so of concurrent conditional PUTs
 * exactly one succeeds. A Custom API with field definitions (custom-fields.ts) has its entries'
 * values judged against them inside the same transaction as the write, and its list filters on
 * them.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.ts';
import type { Db } from '../db.ts';
import { ApiError, badRequest, notFound, preconditionFailed } from '../errors.ts';
import { newId, sha256Hex } from '../ids.ts';
import { emitEvent } from '../integrations/events.ts';
import { listResources, standardListSpec } from '../listing/index.ts';
import { checkType, type JsonObject, requireData } from '../request-body.ts';
import { fieldFilters, fieldsOf, judgeEntryFields } from './fields.ts';
import {
  type CustomApiRow,
  findCustomApiById,
  findCustomApiBySlug,
  parsePathId,
} from './routes.ts';

/** The production limit: 64 KB per entry, counted as data_size. */
export const MAX_ENTRY_SIZE = 65_536;

/** Keys of `data` that are never attributes: JSON:API members and what clients echo back. */
export const RESERVED_KEYS = ['id', 'type', 'links', 'meta', 'timestamps'];

export interface EntryRow {
  store_id: string;
  custom_api_id: string;
  id: string;
  data: string;
  data_size: number;
  resource_version: number;
  etag_id: string;
  created_at: string;
  updated_at: string;
}

/** Byte size of one stored value (see the module comment). */
export function valueSize(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
}

export function dataSize(attributes: JsonObject): number {
  let size = 0;
  for (const value of Object.values(attributes)) size += valueSize(value);
  return size;
}

/**
 * The etag of one stored version: sha256 over id, version, update time and the stored JSON,
 * so it changes whenever any of them does.
 */
export function entryEtag(id: string, version: number, updatedAt: string, data: string): string {
  return sha256Hex(`${id}\n${version}\n${updatedAt}\n${data}`);
}

export function entryJson(row: EntryRow, api: Pick<CustomApiRow, 'api_type' | 'slug'>) {
  const attributes = JSON.parse(row.data) as JsonObject;
  return {
    id: row.id,
    type: api.api_type,
    ...attributes,
    links: { self: `/extensions/${api.slug}/${row.id}` },
    meta: {
      timestamps: { created_at: row.created_at, updated_at: row.updated_at },
      resource_version: row.resource_version,
      data_size: row.data_size,
      etag_id: row.etag_id,
    },
  };
}

/** `<api_type>.created|updated|deleted` for integrations; a deletion carries only type and id. */
function emitEntryEvent(
  db: Db,
  api: CustomApiRow,
  change: 'created' | 'updated' | 'deleted',
  row: EntryRow,
): void {
  emitEvent(db, api.store_id, `${api.api_type}.${change}`, () => ({
    data: change === 'deleted' ? { type: api.api_type, id: row.id } : entryJson(row, api),
  }));
}

/** Deepest nesting of arrays/objects an attribute value may have. */
export const MAX_VALUE_DEPTH = 64;

/** Iterative, so a hostile value cannot overflow the stack here (it would, later, in stringify). */
function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (typeof current !== 'object' || current === null) continue;
    if (depth + 1 > deepest) deepest = depth + 1;
    if (deepest > MAX_VALUE_DEPTH) return deepest;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** The attributes of a request: `data` minus reserved keys; `data.type` must match. */
function attributesOf(body: unknown, api: CustomApiRow): JsonObject {
  const data = requireData(body);
  checkType(data, api.api_type);
  const attributes: JsonObject = {};
  for (const [key, value] of Object.entries(data)) {
    if (RESERVED_KEYS.includes(key)) continue;
    if (key.trim() === '') throw badRequest('Attribute names cannot be empty.', 'data');
    if (depthOf(value) > MAX_VALUE_DEPTH) {
      throw badRequest(
        `Attribute ${key} nests arrays/objects more than ${MAX_VALUE_DEPTH} levels deep.`,
        `data.${key}`,
      );
    }
    // Defined, not assigned: were a `__proto__` key ever to get past the body parser (which
    // refuses it), it would stay an attribute instead of becoming the object's prototype.
    Object.defineProperty(attributes, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return attributes;
}

function checkSize(attributes: JsonObject): number {
  const size = dataSize(attributes);
  if (size > MAX_ENTRY_SIZE) {
    throw new ApiError(413, 'Maximum entry size reached.', { title: 'Request Entity Too Large' });
  }
  return size;
}

/**
 * The etag values an If-Match header lists (`W/"x"`, `"x"`, bare `x`, or `*`). A header that
 * lists none (`If-Match:` empty, or only commas and quotes) is a 400: it is a precondition the
 * client meant to set, and matching nothing must not pass for "no precondition" nor for a
 * changed entry.
 */
export function parseIfMatch(header: string | string[] | undefined): string[] | undefined {
  if (header === undefined) return undefined;
  const raw = Array.isArray(header) ? header.join(',') : header;
  const tags = raw
    .split(',')
    .map((part) =>
      part
        .trim()
        .replace(/^W\//i, '')
        .replace(/^"(.*)"$/, '$1'),
    )
    .filter((part) => part !== '');
  if (tags.length === 0) {
    throw badRequest(
      'If-Match lists no entity tag; send W/"<etag_id>" (or *), or leave the header out.',
      'If-Match',
    );
  }
  return tags;
}

function checkIfMatch(request: FastifyRequest, row: EntryRow | undefined): void {
  const wanted = parseIfMatch(request.headers['if-match']);
  if (wanted === undefined) return;
  if (!row) {
    throw preconditionFailed('If-Match was given but the entry does not exist.');
  }
  if (!wanted.includes('*') && !wanted.includes(row.etag_id)) {
    throw preconditionFailed(
      `If-Match does not match the entry's current version (ETag W/"${row.etag_id}").`,
    );
  }
}

function sendEntry(
  reply: FastifyReply,
  status: number,
  row: EntryRow,
  api: CustomApiRow,
): { data: ReturnType<typeof entryJson> } {
  reply.code(status).header('etag', `W/"${row.etag_id}"`);
  if (status === 201) reply.header('location', `/v2/extensions/${api.slug}/${row.id}`);
  return { data: entryJson(row, api) };
}

function createStatements(db: Db) {
  return {
    find: db.prepare(
      'SELECT * FROM custom_api_entries WHERE store_id = ? AND custom_api_id = ? AND id = ?',
    ),
    insert: db.prepare(
      `INSERT INTO custom_api_entries (store_id, custom_api_id, id, data, data_size,
         resource_version, etag_id, created_at, updated_at)
       VALUES (@store_id, @custom_api_id, @id, @data, @data_size, @resource_version, @etag_id,
         @created_at, @updated_at)`,
    ),
    update: db.prepare(
      `UPDATE custom_api_entries SET data = @data, data_size = @data_size,
         resource_version = @resource_version, etag_id = @etag_id, updated_at = @updated_at
       WHERE store_id = @store_id AND custom_api_id = @custom_api_id AND id = @id
         AND resource_version = @expected_version`,
    ),
    remove: db.prepare(
      `DELETE FROM custom_api_entries
       WHERE store_id = ? AND custom_api_id = ? AND id = ? AND resource_version = ?`,
    ),
    count: db
      .prepare('SELECT entry_count FROM custom_api_entry_counts WHERE custom_api_id = ?')
      .pluck(),
  };
}

const entryKey = (api: CustomApiRow, entryId: string) => ({
  storeId: api.store_id,
  customApiId: api.id,
  entryId,
});

/** How a mount point finds its Custom API from the path. */
type ApiResolver = (request: FastifyRequest) => CustomApiRow;

export function entryRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const { db } = ctx;
  const sql = createStatements(db);

  const newRow = (api: CustomApiRow, id: string, attributes: JsonObject): EntryRow => {
    const now = ctx.timestamp();
    const data = JSON.stringify(attributes);
    return {
      store_id: api.store_id,
      custom_api_id: api.id,
      id,
      data,
      data_size: dataSize(attributes),
      resource_version: 0,
      etag_id: entryEtag(id, 0, now, data),
      created_at: now,
      updated_at: now,
    };
  };

  const findEntry = (api: CustomApiRow, id: string) =>
    sql.find.get(api.store_id, api.id, id) as EntryRow | undefined;

  const mount = (base: string, itemPath: string, resolve: ApiResolver) => {
    const entryIdOf = (request: FastifyRequest) =>
      parsePathId((request.params as { entryId: string }).entryId, 'entry');

    return async (app: Parameters<FastifyPluginAsync>[0]) => {
      app.post(base, async (request, reply) => {
        const api = resolve(request);
        const attributes = attributesOf(request.body, api);
        const row = db
          .transaction(() => {
            const id = newId();
            judgeEntryFields(db, fieldsOf(db, api.id), entryKey(api, id), attributes, undefined);
            checkSize(attributes);
            const created = newRow(api, id, attributes);
            sql.insert.run(created);
            emitEntryEvent(db, api, 'created', created);
            return created;
          })
          .immediate();
        return sendEntry(reply, 201, row, api);
      });

      app.get(base, async (request) => {
        const api = resolve(request);
        return listResources({
          request,
          db,
          table: 'custom_api_entries',
          scope: { store_id: api.store_id, custom_api_id: api.id },
          spec: standardListSpec({
            defaultSort: '-created_at',
            filters: fieldFilters(fieldsOf(db, api.id)),
          }),
          map: (row: EntryRow) => entryJson(row, api),
          countAll: () => Number(sql.count.get(api.id) ?? 0),
        });
      });

      app.get(itemPath, async (request, reply) => {
        const api = resolve(request);
        const id = entryIdOf(request);
        const row = findEntry(api, id);
        if (!row) throw notFound(`No ${api.api_type} entry with id ${id}.`);
        return sendEntry(reply, 200, row, api);
      });

      app.put(itemPath, async (request, reply) => {
        const api = resolve(request);
        const id = entryIdOf(request);
        const patch = attributesOf(request.body, api);
        // Read, check and write in one IMMEDIATE transaction (the write lock is taken before
        // the read), so nothing can change the row in between, not even another connection;
        // the conditional UPDATE is a second guard.
        const result = db
          .transaction((): { status: number; row: EntryRow } => {
            const current = findEntry(api, id);
            checkIfMatch(request, current);
            const fields = fieldsOf(db, api.id);
            if (!current) {
              if (api.allow_upserts !== 1) {
                throw notFound(
                  `No ${api.api_type} entry with id ${id} (this Custom API does not allow upserts).`,
                );
              }
              judgeEntryFields(db, fields, entryKey(api, id), patch, undefined);
              checkSize(patch);
              const row = newRow(api, id, patch);
              sql.insert.run(row);
              emitEntryEvent(db, api, 'created', row);
              return { status: 201, row };
            }
            const stored = JSON.parse(current.data) as JsonObject;
            judgeEntryFields(db, fields, entryKey(api, id), patch, stored);
            const attributes = { ...stored, ...patch };
            const size = checkSize(attributes);
            const version = current.resource_version + 1;
            const updatedAt = ctx.timestamp();
            const data = JSON.stringify(attributes);
            const row: EntryRow = {
              ...current,
              data,
              data_size: size,
              resource_version: version,
              etag_id: entryEtag(id, version, updatedAt, data),
              updated_at: updatedAt,
            };
            const { changes } = sql.update.run({
              ...row,
              expected_version: current.resource_version,
            });
            if (changes !== 1) throw preconditionFailed('The entry changed during this update.');
            emitEntryEvent(db, api, 'updated', row);
            return { status: 200, row };
          })
          .immediate();
        return sendEntry(reply, result.status, result.row, api);
      });

      app.delete(itemPath, async (request, reply) => {
        const api = resolve(request);
        const id = entryIdOf(request);
        db.transaction(() => {
          const current = findEntry(api, id);
          if (!current) throw notFound(`No ${api.api_type} entry with id ${id}.`);
          checkIfMatch(request, current);
          sql.remove.run(api.store_id, api.id, id, current.resource_version);
          emitEntryEvent(db, api, 'deleted', current);
        }).immediate();
        return reply.code(204).send();
      });
    };
  };

  const byId: ApiResolver = (request) =>
    findCustomApiById(
      db,
      request.store.id,
      parsePathId((request.params as { customApiId: string }).customApiId, 'Custom API'),
    );
  const bySlug: ApiResolver = (request) =>
    findCustomApiBySlug(db, request.store.id, (request.params as { slug: string }).slug);

  return async (app) => {
    await app.register(
      mount(
        '/settings/extensions/custom-apis/:customApiId/entries',
        '/settings/extensions/custom-apis/:customApiId/entries/:entryId',
        byId,
      ),
    );
    await app.register(mount('/extensions/:slug', '/extensions/:slug/:entryId', bySlug));
  };
}
