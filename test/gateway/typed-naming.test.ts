/**
 * The naming rules of the typed schema and what is left out, in process: collisions with the
 * base schema and between Custom APIs, invalid names, unmappable fields; and the configuration
 * of the schema credential and refresh.
 */
import { isObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.ts';
import { schema as base } from '../../src/schema/index.ts';
import { buildTypedSchema } from '../../src/schema/typed/build-typed-schema.ts';
import { camelName, fieldNamesFor, typeNameFor } from '../../src/schema/typed/naming.ts';
import type { CustomApiDefinition } from '../../src/upstream/custom-api-definitions.ts';

let n = 0;
function api(apiType: string, slug: string, fields: [string, string][]): CustomApiDefinition {
  n += 1;
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    name: apiType,
    slug,
    apiType,
    description: '',
    fields: fields.map(([fieldSlug, fieldType]) => ({
      id: fieldSlug,
      slug: fieldSlug,
      name: fieldSlug,
      fieldType,
      description: '',
      rules: { allowNull: true },
    })),
  };
}

const fieldsOf = (schema: typeof base, name: string) => {
  const type = schema.getType(name);
  return isObjectType(type) ? Object.keys(type.getFields()).sort() : undefined;
};

describe('typed schema naming', () => {
  it('derives type and field names', () => {
    expect(typeNameFor('gift_card_ext')).toBe('GiftCard');
    expect(typeNameFor('3d_model_ext')).toBe('Api3dModel');
    expect(typeNameFor('__ext')).toBeUndefined();
    expect(camelName('gift-cards')).toBe('giftCards');
    expect(camelName('unit_price')).toBe('unitPrice');
    expect(camelName('2fa')).toBe('_2fa');
    expect(camelName('-')).toBeUndefined();
    expect(
      Object.fromEntries(fieldNamesFor(['gift_code', 'gift-code', 'etag', 'etag_field', 'x'])),
    ).toEqual({
      // "etag" is reserved, so it takes the suffix; "gift-code" sorts before "gift_code".
      etag: 'etagField',
      etag_field: 'etagFieldField',
      'gift-code': 'giftCode',
      gift_code: 'giftCodeField',
      x: 'x',
    });
  });

  it('maps Custom APIs deterministically and resolves collisions by the documented rule', () => {
    const definitions = [
      api('order_ext', 'orders', [['total', 'integer']]),
      api('gift_card_ext', 'gift-cards', [['code', 'string']]),
      api('gift__card_ext', 'gift-cards-2', [['code', 'string']]),
      api('wishlist_ext', 'wishlist', [['name', 'string']]),
      api('empty_ext', 'empty', []),
      api('odd_ext', 'odd', [['items', 'list']]),
      api('__ext', 'nameless', [['a', 'string']]),
    ];
    const build = buildTypedSchema(base, definitions);
    const again = buildTypedSchema(base, [...definitions].reverse());
    expect(build.mapped.map((m) => m.names)).toEqual(again.mapped.map((m) => m.names));
    const names = Object.fromEntries(build.mapped.map((m) => [m.apiType, m.names]));
    // `Order` is a base type: the next candidate, with every derived name.
    // Its slug `orders` is a base root field: the list becomes <lookup>List.
    expect(names.order_ext).toMatchObject({
      type: 'OrderExt',
      lookup: 'orderExt',
      list: 'orderExtList',
    });
    // Two api_types with the same PascalCase: api_type order decides who keeps the plain name.
    expect(names.gift__card_ext?.type).toBe('GiftCard');
    expect(names.gift_card_ext?.type).toBe('GiftCardExt');
    expect(names.gift_card_ext?.list).toBe('giftCards');
    expect(names.gift__card_ext?.list).toBe('giftCards2');
    // The slug's camelCase equals the lookup: the list becomes <lookup>List.
    expect(names.wishlist_ext).toMatchObject({ lookup: 'wishlist', list: 'wishlistList' });
    expect(build.skipped).toEqual(
      expect.arrayContaining([
        { apiType: 'empty_ext', reason: 'it has no fields the typed schema can map' },
        { apiType: 'odd_ext', slug: 'items', reason: 'field type "list" has no GraphQL mapping' },
        { apiType: 'odd_ext', reason: 'it has no fields the typed schema can map' },
        {
          apiType: '__ext',
          reason: 'its names collide with the schema or cannot be GraphQL names',
        },
      ]),
    );
    expect(fieldsOf(build.schema, 'Order')).toEqual(fieldsOf(base, 'Order'));
    expect(fieldsOf(build.schema, 'OrderExt')).toContain('total');
    // The base schema itself is never changed.
    expect(base.getType('OrderExt')).toBeUndefined();
  });

  it('serves the base schema itself when nothing can be typed', () => {
    expect(buildTypedSchema(base, []).schema).toBe(base);
    expect(buildTypedSchema(base, [api('empty2_ext', 'empty2', [])]).schema).toBe(base);
  });
});

describe('typed schema configuration', () => {
  it('reads SCHEMA_CLIENT_ID, SCHEMA_CLIENT_SECRET and SCHEMA_REFRESH_MS', () => {
    expect(loadConfig({}).typedSchema).toEqual({
      credentials: undefined,
      refreshMs: 60_000,
    });
    expect(
      loadConfig({
        SCHEMA_CLIENT_ID: 'schema',
        SCHEMA_CLIENT_SECRET: 's3cret',
        SCHEMA_REFRESH_MS: '5000',
      }).typedSchema,
    ).toEqual({ credentials: { clientId: 'schema', clientSecret: 's3cret' }, refreshMs: 5000 });
  });

  it('refuses half a credential and a refresh below one second, without echoing the secret', () => {
    expect(() => loadConfig({ SCHEMA_CLIENT_SECRET: 's3cret' })).toThrow(ConfigError);
    try {
      loadConfig({ SCHEMA_CLIENT_SECRET: 's3cret' });
    } catch (error) {
      expect((error as Error).message).not.toContain('s3cret');
    }
    expect(() => loadConfig({ SCHEMA_REFRESH_MS: '10' })).toThrow(/at least 1000/);
    expect(() => loadConfig({ SCHEMA_REFRESH_MS: 'soon' })).toThrow(/SCHEMA_REFRESH_MS/);
  });
});
