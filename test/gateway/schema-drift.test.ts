import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import {
  type GraphQLSchema,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import {
  buildDemoTypedSchema,
  renderSchema,
  renderSubgraphSchema,
  renderTypedSchema,
  SCHEMA_FILE,
  SUBGRAPH_FILE,
  TYPED_SCHEMA_FILE,
} from '../../scripts/print-schema.ts';
import { schema } from '../../src/schema/index.ts';

/** Types, fields, arguments and enum values without a description. */
function undescribed(schema: GraphQLSchema): string[] {
  const missing: string[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__')) continue;
    if (!type.description) missing.push(type.name);
    if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) {
        if (!field.description) missing.push(`${type.name}.${field.name}`);
        for (const arg of 'args' in field ? field.args : []) {
          if (!arg.description) missing.push(`${type.name}.${field.name}(${arg.name})`);
        }
      }
    }
    if (isEnumType(type)) {
      for (const value of type.getValues()) {
        if (!value.description) missing.push(`${type.name}.${value.name}`);
      }
    }
  }
  return missing.filter((name) => !['Boolean', 'Int', 'String', 'ID', 'Float'].includes(name));
}

describe('schema.graphql', () => {
  it('is the committed, sorted print of the schema (run `npm run schema` after a change)', () => {
    expect(readFileSync(SCHEMA_FILE, 'utf8')).toBe(renderSchema());
  });

  it('`npm run schema -- --check` fails on drift', () => {
    const run = spawnSync(
      process.execPath,
      ['scripts/ts.mjs', 'scripts/print-schema.ts', '--check'],
      {
        encoding: 'utf8',
      },
    );
    // The static files: schema.graphql and subgraph.graphql.
    expect(run.stdout).toMatch(/schema.graphql is up to date\nsubgraph.graphql is up to date/);
    expect(run.status).toBe(0);
  });

  it('describes every type, field, argument and enum value', () => {
    expect(undescribed(schema)).toEqual([]);
  });

  it('keeps the public contract names', () => {
    const signature = (root: 'Query' | 'Mutation', name: string) => {
      const type = root === 'Query' ? schema.getQueryType() : schema.getMutationType();
      const field = type?.getFields()[name];
      return field && `${field.args.map((a) => `${a.name}: ${a.type}`).join(', ')} → ${field.type}`;
    };
    const fields = (name: string) => {
      const type = schema.getType(name);
      return isObjectType(type) || isInputObjectType(type)
        ? Object.fromEntries(Object.values(type.getFields()).map((f) => [f.name, String(f.type)]))
        : undefined;
    };
    expect(signature('Mutation', 'createCustomApiEntry')).toBe(
      'input: CreateCustomApiEntryInput! → CreateCustomApiEntryPayload!',
    );
    expect(signature('Mutation', 'updateCartItemCustomDiscount')).toBe(
      'input: UpdateCartItemCustomDiscountInput! → UpdateCartItemCustomDiscountPayload!',
    );
    expect(fields('CreateCustomApiEntryInput')).toEqual({
      customApiId: 'ID!',
      type: 'String',
      attributes: 'JSONObject!',
    });
    // What a mutation shows after its write is nullable: when it cannot be built, the write
    // still happened, and the payload says so with a WRITE_COMMITTED error (issue 20 #6); and
    // every payload carries the caller's fixable errors (issue 29).
    const UE = { userErrors: '[UserError!]!' };
    expect(fields('CreateCustomApiEntryPayload')).toEqual({ entry: 'CustomApiEntry', ...UE });
    expect(fields('UpdateCartItemCustomDiscountInput')).toEqual({
      cartId: 'ID!',
      cartItemId: 'ID!',
      customDiscountId: 'ID!',
      amount: 'Int!',
      description: 'String!',
      discountCode: 'String!',
      discountEngine: 'String!',
      externalId: 'String!',
    });
    expect(fields('UpdateCartItemCustomDiscountPayload')).toEqual({
      customDiscount: 'CustomDiscount',
      cart: 'Cart',
      ...UE,
    });
    // The storefront journey (issue 11): names and payloads are the contract.
    for (const [mutation, payload] of [
      ['createCart', { cart: 'Cart' }],
      ['addCartCustomItem', { cart: 'Cart' }],
      ['updateCartItem', { cart: 'Cart' }],
      ['removeCartItem', { cart: 'Cart' }],
      ['addCartItemCustomDiscount', { customDiscount: 'CustomDiscount', cart: 'Cart' }],
      ['deleteCartItemCustomDiscount', { deletedId: 'ID', cart: 'Cart' }],
      ['addCartCustomDiscount', { customDiscount: 'CustomDiscount', cart: 'Cart' }],
      ['updateCartCustomDiscount', { customDiscount: 'CustomDiscount', cart: 'Cart' }],
      ['deleteCartCustomDiscount', { deletedId: 'ID', cart: 'Cart' }],
      ['checkoutCart', { order: 'Order' }],
      ['deleteCart', { deletedId: 'ID' }],
      ['createCustomerToken', { token: 'String', expiresAt: 'DateTime', customer: 'Customer' }],
    ] as const) {
      const Type = mutation[0]?.toUpperCase() + mutation.slice(1);
      expect(signature('Mutation', mutation)).toBe(`input: ${Type}Input! → ${Type}Payload!`);
      expect(fields(`${Type}Payload`)).toEqual({ ...payload, ...UE });
    }
    expect(fields('CreateCartInput')).toEqual({
      name: 'String!',
      description: 'String',
      customDiscountsEnabled: 'Boolean',
      currency: 'String',
    });
    expect(fields('AddCartCustomItemInput')).toEqual({
      cartId: 'ID!',
      name: 'String!',
      sku: 'String!',
      description: 'String',
      quantity: 'Int!',
      price: 'CustomItemPriceInput!',
    });
    expect(fields('CustomItemPriceInput')).toEqual({ amount: 'Int!', includesTax: 'Boolean' });
    expect(fields('CreateCustomerTokenInput')).toEqual({ email: 'String!', password: 'String!' });
    expect(signature('Query', 'viewer')).toBe(' → Viewer');
    expect(signature('Query', 'customer')).toBe('id: ID! → Customer');
    // `viewer` covers account members too (issue 24): then `customer` is null, and
    // `accountMember` and `account` say who. With a customer token `customer` is always there.
    expect(fields('Viewer')).toEqual({
      customer: 'Customer',
      orders: 'OrderConnection!',
      carts: 'CartConnection!',
      accountMember: 'AccountMember',
      account: 'Account',
    });
    expect(fields('CustomDiscount')).toEqual({
      id: 'ID!',
      type: 'String!',
      amount: 'Money!',
      description: 'String!',
      discountCode: 'String!',
      discountEngine: 'String!',
      externalId: 'String!',
    });
    // Amounts stay 32-bit Int: every price, discount and total is bounded to fit (issue 20 #6);
    // an order's money is nullable so one order that cannot be shown does not fail a page.
    expect(fields('Money')).toEqual({
      amount: 'Int!',
      currency: 'String!',
      decimal: 'String!',
      formatted: 'String!',
    });
    expect(fields('Order')).toMatchObject({
      total: 'Money',
      totals: 'CartTotals',
      items: '[OrderItem!]',
    });
    for (const sortKey of ['CustomApiEntry', 'CustomApi', 'Order', 'File', 'Account', 'Customer']) {
      const type = schema.getType(`${sortKey}SortKey`);
      expect(isEnumType(type) && type.getValues().map((v) => v.name)).toEqual([
        'CREATED_AT',
        'ID',
        'UPDATED_AT',
      ]);
    }
    const orders = schema.getQueryType()?.getFields().orders;
    expect(orders && getNamedType(orders.type).name).toBe('OrderConnection');
    expect(orders?.args.map((a) => a.name).sort()).toEqual([
      'after',
      'before',
      'filter',
      'first',
      'last',
      'reverse',
      'sortKey',
      'updatedSince',
    ]);
  });
});

describe('subgraph.graphql (the Federation v2 subgraph SDL)', () => {
  it('is the committed print of the subgraph SDL (`npm run schema` writes it too)', () => {
    expect(readFileSync(SUBGRAPH_FILE, 'utf8')).toBe(renderSubgraphSchema());
  });
});

describe('schema.typed.graphql (the demo store’s full schema)', () => {
  it('is the committed print of the demo store’s typed schema (`npm run schema -- --typed`)', async () => {
    expect(readFileSync(TYPED_SCHEMA_FILE, 'utf8')).toBe(await renderTypedSchema());
  });

  it('`npm run schema -- --typed --check` fails on drift', () => {
    const run = spawnSync(
      process.execPath,
      ['scripts/ts.mjs', 'scripts/print-schema.ts', '--typed', '--check'],
      { encoding: 'utf8' },
    );
    expect(run.stdout + run.stderr).toMatch(/schema.typed.graphql is up to date/);
    expect(run.status).toBe(0);
  });

  it('types the demo Custom APIs, and describes every generated type and field', async () => {
    const typed = await buildDemoTypedSchema();
    expect(undescribed(typed)).toEqual([]);
    const query = typed.getQueryType()?.getFields() ?? {};
    for (const name of ['wishlists', 'wishlistsList', 'productReviews', 'productReviewsList']) {
      expect(query[name], name).toBeDefined();
    }
    const wishlists = typed.getType('Wishlists');
    expect(
      isObjectType(wishlists) &&
        Object.fromEntries(
          Object.values(wishlists.getFields()).map((f) => [f.name, String(f.type)]),
        ),
    ).toMatchObject({ name: 'String', itemsCount: 'Int', isPublic: 'Boolean' });
    // The static part is the base schema, unchanged.
    expect(query.customApiEntries).toBeDefined();
  });
});
