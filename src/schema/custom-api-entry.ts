/**
 * CustomApiEntry: one record of a Custom API (a described sub-collection of it, resource.ts),
 * with its create / update / delete mutations. Lookups by id go through the request's batch
 * loader of the Custom API's entries, so N entries of one Custom API asked for in one operation
 * cost one `filter=in(id,…)` call.
 */
import { expectResource, isJsonObject, type JsonObject } from '../upstream/client.ts';
import { BadUserInputError } from '../upstream/errors.ts';
import type { GatewayContext } from '../upstream/session.ts';
import type { InputFieldBuilder } from './cart-write.ts';
import { idKind } from './kit/ids.ts';
import { defineMutation, type IdFields } from './kit/mutation.ts';
import { answerPayload, defineDelete, writeAnswer } from './kit/writes.ts';
import { defineResource, field, type ShapeOfResource } from './resource.ts';
import {
  judgeNonEmpty,
  optionalIfMatch,
  readObject,
  readOptionalString,
  readString,
} from './rows.ts';

/** Keys of an entry body that are not attributes. */
const RESERVED = new Set(['id', 'type', 'links', 'meta', 'timestamps']);

/** The largest entry the v2 API stores, in data_size bytes. */
export const MAX_ENTRY_BYTES = 64 * 1024;

/** The entry's own attributes: every key of the row but the reserved ones. */
function ownAttributes(row: JsonObject): JsonObject {
  // fromEntries defines keys: an attribute `__proto__` stays an attribute, not a prototype.
  return Object.fromEntries(Object.entries(row).filter(([key]) => !RESERVED.has(key)));
}

const metaOf = (row: JsonObject): JsonObject => (isJsonObject(row.meta) ? row.meta : {});

/** The records of a Custom API: a sub-collection, known by the Custom API's id and their own. */
export const Entries = defineResource({
  name: 'CustomApiEntry',
  singular: 'entry',
  plural: 'entries',
  label: 'entry',
  description: 'One record of a Custom API: its attributes plus version and timestamps.',
  path: '/v2/settings/extensions/custom-apis/{customApiId}/entries',
  params: { customApiId: ['The Custom API.', idKind('CustomApi')] },
  body: 'flat',
  timestamps: 'meta.timestamps',
  readableBy: ['client_credentials'],
  fields: {
    meta: field.carried((row) => readObject(row, 'meta', 'entry')),
    upstreamId: field.id('The entry id upstream (uuid).'),
    customApiId: field.param('customApiId', 'Upstream id of the Custom API this entry belongs to.'),
    type: field.string('The api_type of the Custom API.'),
    attributes: field.json(
      'The entry’s own attributes (everything but id, type, links and meta).',
      { read: ownAttributes },
    ),
    dataSize: field.int('Bytes stored (sum of value sizes); at most 65,536.', {
      from: 'meta.data_size',
    }),
    resourceVersion: field.int('Version counter; grows with every change.', {
      read: (row) => {
        const version = metaOf(row).resource_version;
        return typeof version === 'number' ? version : 0;
      },
    }),
    /** The entity tag `W/"<etag_id>"`, usable verbatim as `ifMatch`. */
    etag: field.string('Entity tag of this version (W/"…"); pass as `ifMatch` to update safely.', {
      nullable: true,
      read: (row) => {
        const etagId = readOptionalString(metaOf(row), 'etag_id');
        return etagId === null ? null : `W/"${etagId}"`;
      },
    }),
    selfLink: field.string('Upstream link to this entry.', { from: 'links.self', nullable: true }),
  },
  lookup: {
    field: 'customApiEntry',
    description: 'One entry by upstream ids; null when it does not exist in this store.',
  },
  list: {
    field: 'customApiEntries',
    description: 'The entries of one Custom API.',
    connection: 'entries',
    paging: 'keyset',
    offsetLimit: 'soft',
  },
  entity: true,
});

export type CustomApiEntryShape = ShapeOfResource<typeof Entries>;

/**
 * The entry's size as the v2 API counts `data_size`: the sum of the UTF-8 byte sizes of every
 * stored value, each value measured as its JSON text (strings without their quotes).
 */
export function entryDataSize(attributes: JsonObject): number {
  let size = 0;
  for (const value of Object.values(attributes)) {
    size +=
      typeof value === 'string'
        ? Buffer.byteLength(value, 'utf8')
        : Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
  }
  return size;
}

function judgeAttributes(attributes: JsonObject, field: string): JsonObject {
  for (const key of Object.keys(attributes)) {
    if (key.trim() === '') {
      throw new BadUserInputError(`${field} cannot have an empty attribute name`, { field });
    }
    if (RESERVED.has(key)) {
      throw new BadUserInputError(`${field}.${key} is reserved and cannot be an attribute`, {
        field: `${field}.${key}`,
      });
    }
    // No v2 body may carry it (the embedded service's JSON parser refuses it, and a JavaScript
    // object would take it as its prototype): judged here, with a clear message.
    if (key === '__proto__') {
      throw new BadUserInputError(`${field}.__proto__ cannot be an attribute name`, {
        field: `${field}.__proto__`,
      });
    }
  }
  const size = entryDataSize(attributes);
  if (size > MAX_ENTRY_BYTES) {
    throw new BadUserInputError(
      `${field} is ${size} bytes; an entry may hold at most ${MAX_ENTRY_BYTES} bytes (64 KB)`,
      { field },
    );
  }
  return attributes;
}

/** The v2 path of a Custom API's entries (shared with the typed schema). */
export const entriesPath = (customApiId: string) => Entries.segments({ customApiId });

// ---- mutations ----

/** The entry in a write response, with the ETag header taking precedence over meta.etag_id. */
export function entryFromWrite(
  response: { body: unknown; etag: string | undefined },
  customApiId: string,
): CustomApiEntryShape {
  const entry = Entries.read(expectResource({ status: 200, ...response }), { customApiId });
  return response.etag ? { ...entry, etag: response.etag } : entry;
}

/** The api_type of a Custom API: the `type` its entries must carry (one cached GET). */
async function fetchApiType(context: GatewayContext, customApiId: string): Promise<string> {
  const api = expectResource(
    await context.get(['settings', 'extensions', 'custom-apis', customApiId]),
  );
  return readString(api, 'api_type', 'custom_api');
}

const API = idKind('CustomApi');
const API_IDS = { customApiId: [API, 'The Custom API'] } as const satisfies IdFields<'customApiId'>;
const ENTRY_IDS = {
  ...API_IDS,
  entryId: [idKind('CustomApiEntry'), 'The entry'],
} as const satisfies IdFields<'customApiId' | 'entryId'>;

const entryPayload = (name: string, description: string) =>
  answerPayload<CustomApiEntryShape>(name, {
    description,
    field: 'entry',
    type: Entries.ref,
    about:
      'The entry as stored, with its new etag; null, with a WRITE_COMMITTED error, when the ' +
      'write happened but its answer was unusable.',
  });

const ifMatchField = (t: InputFieldBuilder, what: string) =>
  t.string({
    required: false,
    description: `Only ${what} if the entry still has this etag (PRECONDITION_FAILED if not).`,
  });

defineMutation('createCustomApiEntry', {
  description: 'Creates an entry of a Custom API (POST …/custom-apis/{id}/entries).',
  ids: API_IDS,
  input: {
    description: 'A new entry of a Custom API.',
    fields: (t) => ({
      type: t.string({
        required: false,
        description: 'The api_type of the Custom API; supplied by the gateway when omitted.',
      }),
      attributes: t.field({
        type: 'JSONObject',
        required: true,
        description: 'The entry’s attributes; at most 64 KB by the data_size measure.',
      }),
    }),
  },
  payload: entryPayload('CreateCustomApiEntryPayload', 'The created entry.'),
  resolve: async (input, context, { customApiId }) => {
    const attributes = judgeAttributes(input.attributes, 'input.attributes');
    const type =
      input.type === null || input.type === undefined
        ? await fetchApiType(context, customApiId)
        : judgeNonEmpty(input.type, 'input.type');
    return writeAnswer(
      context,
      {
        method: 'POST',
        segments: entriesPath(customApiId),
        body: { data: { ...attributes, type } },
      },
      (response) => entryFromWrite(response, customApiId),
    );
  },
});

defineMutation('updateCustomApiEntry', {
  description: 'Updates some attributes of an entry (PUT), optionally only if unchanged.',
  ids: ENTRY_IDS,
  input: {
    description: 'A partial update of an entry: attributes not given keep their values.',
    fields: (t) => ({
      attributes: t.field({
        type: 'JSONObject',
        required: true,
        description: 'Attributes to set; the stored entry stays within 64 KB.',
      }),
      ifMatch: ifMatchField(t, 'update'),
    }),
  },
  payload: entryPayload('UpdateCustomApiEntryPayload', 'The updated entry.'),
  resolve: async (input, context, { customApiId, entryId }) => {
    const attributes = judgeAttributes(input.attributes, 'input.attributes');
    const ifMatch = optionalIfMatch(input.ifMatch, 'input.ifMatch');
    // The production API wants data.type on PUT too; it is the Custom API's api_type.
    const type = await fetchApiType(context, customApiId);
    return writeAnswer(
      context,
      {
        method: 'PUT',
        segments: [...entriesPath(customApiId), entryId],
        body: { data: { ...attributes, type } },
        ifMatch,
      },
      (response) => entryFromWrite(response, customApiId),
    );
  },
});

defineDelete('deleteCustomApiEntry', {
  description: 'Deletes an entry, optionally only if unchanged since it was read.',
  what: 'entry',
  ids: ENTRY_IDS,
  deleted: 'entryId',
  fields: (t) => ({ ifMatch: ifMatchField(t, 'delete') }),
  request: ({ customApiId, entryId }, input) => ({
    segments: [...entriesPath(customApiId), entryId],
    ifMatch: optionalIfMatch(input.ifMatch, 'input.ifMatch'),
  }),
});
