/**
 * Inventory locations (`/v2/inventories/locations`, the multi-location API's warehouses and
 * shops): `name` (3–1,024) and `slug` (unique in the store: 409) required, `external_ref`,
 * `description`, `address` (1–8 lines) and `geolocation` {lat, lon} optional. A storefront
 * lists them (its listLocations), so reading is a shopper's; writing is the store's. Stock per
 * location is not served (inventory/bodies.ts).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../context.ts';
import { parsePathId } from '../custom-apis/routes.ts';
import { cachedStatement, type Db } from '../db.ts';
import { badRequest, conflict, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import { creationOrderListSpec, listResources } from '../listing/index.ts';
import {
  isObject,
  type JsonObject,
  optionalText,
  rejectUnknownKeys,
  requireText,
} from '../request-body.ts';
import { readResource } from '../resource-body.ts';

interface LocationRow {
  id: string;
  store_id: string;
  name: string;
  slug: string;
  external_ref: string | null;
  description: string | null;
  /** JSON list of lines, or null. */
  address: string | null;
  /** JSON {lat, lon}, or null. */
  geolocation: string | null;
  created_at: string;
  updated_at: string;
}

type LocationInput = Partial<Omit<LocationRow, 'id' | 'store_id' | 'created_at' | 'updated_at'>>;

const AT = 'data.attributes';
const SLUG = /^[A-Za-z0-9._-]{1,128}$/;
const spec = creationOrderListSpec({});

function present(row: LocationRow) {
  return {
    id: row.id,
    type: 'inventory_location',
    attributes: {
      name: row.name,
      slug: row.slug,
      ...(row.external_ref === null ? {} : { external_ref: row.external_ref }),
      ...(row.description === null ? {} : { description: row.description }),
      ...(row.address === null ? {} : { address: JSON.parse(row.address) }),
      ...(row.geolocation === null ? {} : { geolocation: JSON.parse(row.geolocation) }),
    },
    meta: { timestamps: { created_at: row.created_at, updated_at: row.updated_at } },
  };
}

/** Text of 3 to 1,024 characters (production's bounds); null clears it on update. */
function text(attributes: JsonObject, key: string): string | null | undefined {
  if (attributes[key] === null) return null;
  const value = optionalText(attributes, key, { prefix: AT, max: 1024 });
  if (value !== undefined && value.length < 3) {
    throw badRequest(`${AT}.${key} must be at least 3 characters.`, `${AT}.${key}`);
  }
  return value;
}

function coordinate(value: JsonObject, key: 'lat' | 'lon', limit: number): number {
  const n = value[key];
  const source = `${AT}.geolocation.${key}`;
  if (typeof n !== 'number' || !Number.isFinite(n) || Math.abs(n) > limit) {
    throw badRequest(`${source} must be a number from -${limit} to ${limit}.`, source);
  }
  return n;
}

function parseLocation(body: unknown, creating: boolean, id?: string): LocationInput {
  const attributes = readResource(body, 'inventory_location', {
    requireAttributes: true,
    attributes: ['name', 'slug', 'external_ref', 'description', 'address', 'geolocation'],
    ...(id === undefined ? {} : { id }),
  }).attributes;
  const input: LocationInput = {};
  const name = text(attributes, 'name');
  if (name === null || (creating && name === undefined)) {
    throw badRequest(`${AT}.name is required.`, `${AT}.name`);
  }
  if (name !== undefined) input.name = name;
  const slug = creating
    ? requireText(attributes, 'slug', { prefix: AT, max: 128 })
    : optionalText(attributes, 'slug', { prefix: AT, max: 128 });
  if (slug !== undefined) {
    if (!SLUG.test(slug)) {
      throw badRequest(`${AT}.slug may hold only letters, digits, ".", "_" and "-".`, `${AT}.slug`);
    }
    input.slug = slug;
  }
  for (const key of ['external_ref', 'description'] as const) {
    const value = text(attributes, key);
    if (value !== undefined) input[key] = value;
  }
  if (attributes.address === null) input.address = null;
  else if (attributes.address !== undefined) {
    const lines = attributes.address;
    if (
      !Array.isArray(lines) ||
      lines.length < 1 ||
      lines.length > 8 ||
      !lines.every((line) => typeof line === 'string' && line.length <= 1024)
    ) {
      throw badRequest(`${AT}.address must be a list of 1 to 8 lines of text.`, `${AT}.address`);
    }
    input.address = JSON.stringify(lines);
  }
  if (attributes.geolocation === null) input.geolocation = null;
  else if (attributes.geolocation !== undefined) {
    const geo = attributes.geolocation;
    if (!isObject(geo)) {
      throw badRequest(`${AT}.geolocation must be {"lat":…,"lon":…}.`, `${AT}.geolocation`);
    }
    rejectUnknownKeys(geo, ['lat', 'lon'], `${AT}.geolocation`);
    input.geolocation = JSON.stringify({
      lat: coordinate(geo, 'lat', 90),
      lon: coordinate(geo, 'lon', 180),
    });
  }
  return input;
}

function findLocation(db: Db, storeId: string, rawId: string): LocationRow {
  const id = parsePathId(rawId, 'location');
  const row = cachedStatement(
    db,
    'SELECT * FROM inventory_locations WHERE store_id = ? AND id = ?',
  ).get(storeId, id) as LocationRow | undefined;
  if (!row) throw notFound(`No inventory location with id ${id}.`);
  return row;
}

function checkSlugFree(db: Db, row: LocationRow): void {
  const taken = cachedStatement(
    db,
    'SELECT 1 FROM inventory_locations WHERE store_id = ? AND slug = ? AND id != ?',
  ).get(row.store_id, row.slug, row.id);
  if (taken !== undefined) {
    throw conflict(`An inventory location with slug "${row.slug}" exists already.`, `${AT}.slug`);
  }
}

interface LocationParams {
  locationId: string;
}

export function inventoryLocationRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const { db } = ctx;
  const save = db.prepare(
    `INSERT INTO inventory_locations (id, store_id, name, slug, external_ref, description, address,
                                      geolocation, created_at, updated_at)
     VALUES (@id, @store_id, @name, @slug, @external_ref, @description, @address, @geolocation,
             @created_at, @updated_at)
     ON CONFLICT (id) DO UPDATE SET name = @name, slug = @slug, external_ref = @external_ref,
       description = @description, address = @address, geolocation = @geolocation,
       updated_at = @updated_at`,
  );
  return async (app) => {
    app.post('/inventories/locations', async (request, reply) => {
      const input = parseLocation(request.body, true);
      const now = ctx.timestamp();
      const row: LocationRow = {
        id: newId(),
        store_id: request.store.id,
        name: '',
        slug: '',
        external_ref: null,
        description: null,
        address: null,
        geolocation: null,
        ...input,
        created_at: now,
        updated_at: now,
      };
      db.transaction(() => {
        checkSlugFree(db, row);
        save.run({ ...row });
      }).immediate();
      reply.code(201);
      return { data: present(row) };
    });

    app.get('/inventories/locations', async (request) =>
      listResources({
        request,
        db,
        table: 'inventory_locations',
        scope: { store_id: request.store.id },
        spec,
        map: present,
      }),
    );

    app.get<{ Params: LocationParams }>('/inventories/locations/:locationId', async (request) => ({
      data: present(findLocation(db, request.store.id, request.params.locationId)),
    }));

    app.put<{ Params: LocationParams }>('/inventories/locations/:locationId', async (request) => {
      const input = parseLocation(request.body, false, request.params.locationId);
      const row = db
        .transaction(() => {
          const current = findLocation(db, request.store.id, request.params.locationId);
          const next: LocationRow = { ...current, ...input, updated_at: ctx.timestamp() };
          if (next.slug !== current.slug) checkSlugFree(db, next);
          save.run({ ...next });
          return next;
        })
        .immediate();
      return { data: present(row) };
    });

    app.delete<{ Params: LocationParams }>(
      '/inventories/locations/:locationId',
      async (request, reply) => {
        const row = findLocation(db, request.store.id, request.params.locationId);
        db.prepare('DELETE FROM inventory_locations WHERE id = ?').run(row.id);
        return reply.code(204).send();
      },
    );
  };
}
