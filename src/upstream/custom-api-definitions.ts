/**
 * Reads the store's Custom APIs and their field definitions, for the typed schema
 * (src/schema/typed/). It uses a credential of the gateway's own (SCHEMA_CLIENT_ID /
 * SCHEMA_CLIENT_SECRET, client_credentials: ./oauth.ts), never a caller's token: the schema is
 * the same for every caller of the store, and is built between requests, not inside one. Its
 * calls go on the origin's one pool (./transport.ts), on the lane of calls outside operations.
 */
import { createCallBudget } from './budget.ts';
import {
  createUpstreamClient,
  expectList,
  isJsonObject,
  type JsonObject,
  type SendAttempt,
  type UpstreamClient,
} from './client.ts';
import { UnauthenticatedError, UpstreamUnavailableError } from './errors.ts';
import type { TokenSource } from './oauth.ts';
import { listQuery } from './paging/query.ts';
import type { UpstreamTransport } from './transport.ts';

export type FieldType = 'string' | 'integer' | 'float' | 'boolean';

/** The rules of one field as the gateway can judge them (uniqueness and immutability it cannot). */
export interface FieldRules {
  minLength?: number;
  maxLength?: number;
  regex?: string;
  minValue?: number;
  maxValue?: number;
  allowNull: boolean;
}

export interface FieldDefinition {
  id: string;
  slug: string;
  name: string;
  /** One of FieldType, or whatever else the upstream names (left out of the typed schema). */
  fieldType: string;
  description: string;
  rules: FieldRules;
}

export interface CustomApiDefinition {
  id: string;
  name: string;
  slug: string;
  apiType: string;
  description: string;
  fields: FieldDefinition[];
}

export interface SchemaCredentials {
  clientId: string;
  clientSecret: string;
}

export interface DefinitionReaderOptions {
  /** The origin's one transport (the same pool callers' requests go on). */
  transport: UpstreamTransport;
  /** The gateway's own token for the store (./oauth.ts, from the schema credential). */
  tokens: TokenSource;
  /** Deadline of one whole read. Default 30,000 ms. */
  timeoutMs?: number;
  /** The attempt function (tests). Default: one plain HTTP attempt. */
  send?: SendAttempt;
}

export interface DefinitionReader {
  /** Every Custom API of the credential's store with its fields, ordered by api_type. */
  read(): Promise<CustomApiDefinition[]>;
}

/** Most Custom APIs (and fields per Custom API) read: the v2 offset limit. */
const MAX_ROWS = 10_000;
const PAGE = 100;

const str = (row: JsonObject, key: string): string | undefined =>
  typeof row[key] === 'string' ? (row[key] as string) : undefined;
const num = (row: JsonObject, key: string): number | undefined =>
  typeof row[key] === 'number' && Number.isFinite(row[key]) ? (row[key] as number) : undefined;

function unusable(what: string): UpstreamUnavailableError {
  return new UpstreamUnavailableError(`The commerce service sent an unusable answer (${what})`, {
    reason: 'invalid-body',
  });
}

export function toFieldDefinition(row: JsonObject): FieldDefinition {
  const slug = str(row, 'slug');
  const fieldType = str(row, 'field_type');
  if (slug === undefined || fieldType === undefined) throw unusable('field without slug or type');
  const validation = isJsonObject(row.validation) ? row.validation : {};
  const own = isJsonObject(validation[fieldType]) ? (validation[fieldType] as JsonObject) : {};
  const rules: FieldRules = { allowNull: own.allow_null_values !== false };
  const set = <K extends keyof FieldRules>(key: K, value: FieldRules[K] | undefined) => {
    if (value !== undefined) rules[key] = value;
  };
  set('minLength', num(own, 'min_length'));
  set('maxLength', num(own, 'max_length'));
  set('regex', str(own, 'regex'));
  set('minValue', num(own, 'min_value'));
  set('maxValue', num(own, 'max_value'));
  return {
    id: String(row.id),
    slug,
    name: str(row, 'name') ?? slug,
    fieldType,
    description: str(row, 'description') ?? '',
    rules,
  };
}

export function createDefinitionReader(options: DefinitionReaderOptions): DefinitionReader {
  const { transport, tokens } = options;

  const listAll = async (client: UpstreamClient, segments: readonly string[]) => {
    const rows: JsonObject[] = [];
    for (let offset = 0; offset < MAX_ROWS; offset += PAGE) {
      const list = expectList(
        await client.request({
          method: 'GET',
          segments,
          query: listQuery({ limit: PAGE, offset, sort: 'created_at' }),
        }),
      );
      rows.push(...list.data);
      if (list.data.length < PAGE || offset + PAGE >= list.total) break;
    }
    return rows;
  };

  const readOnce = async (signal: AbortSignal): Promise<CustomApiDefinition[]> => {
    const client = createUpstreamClient({
      transport,
      authorization: `Bearer ${await tokens.get(signal)}`,
      requestId: `schema-refresh-${Date.now()}`,
      budget: createCallBudget(100_000),
      signal,
      send: options.send,
    });
    const base = ['settings', 'extensions', 'custom-apis'];
    const apis = await listAll(client, base);
    const definitions = await Promise.all(
      apis.map(async (api): Promise<CustomApiDefinition> => {
        const id = str(api, 'id');
        const slug = str(api, 'slug');
        const apiType = str(api, 'api_type');
        if (id === undefined || slug === undefined || apiType === undefined) {
          throw unusable('Custom API without id, slug or api_type');
        }
        const fields = (await listAll(client, [...base, id, 'fields'])).map(toFieldDefinition);
        return {
          id,
          name: str(api, 'name') ?? slug,
          slug,
          apiType,
          description: str(api, 'description') ?? '',
          fields,
        };
      }),
    );
    return definitions.sort((a, b) => (a.apiType < b.apiType ? -1 : a.apiType > b.apiType ? 1 : 0));
  };

  return {
    async read() {
      const signal = AbortSignal.timeout(options.timeoutMs ?? 30_000);
      try {
        return await readOnce(signal);
      } catch (error) {
        // A token revoked or expired early: one fresh token, one more try.
        if (!(error instanceof UnauthenticatedError) || !tokens.held) throw error;
        tokens.forget();
        return readOnce(signal);
      }
    },
  };
}
