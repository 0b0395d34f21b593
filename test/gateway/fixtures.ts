/**
 * Test data made straight through the v2 REST API of the embedded service (not through the
 * gateway), so the gateway is only ever the thing under test.
 */
import type { Stack } from '../support/harness.ts';

/** REST and GraphQL answers are read loosely in tests. */
export type Json = any;

export async function rest(
  stack: Stack,
  method: string,
  path: string,
  body?: unknown,
  clientId?: string,
): Promise<{ status: number; body: Json }> {
  const token = await stack.token(clientId);
  const response = await fetch(`${stack.serviceUrl}/v2${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

async function ok(
  stack: Stack,
  method: string,
  path: string,
  body?: unknown,
  clientId?: string,
): Promise<Json> {
  const response = await rest(stack, method, path, body, clientId);
  if (response.status >= 300) {
    throw new Error(`${method} ${path} → ${response.status} ${JSON.stringify(response.body)}`);
  }
  return response.body.data;
}

let counter = 0;

/** A Custom API with a unique api_type; returns its REST representation. */
export function createCustomApi(
  stack: Stack,
  clientId?: string,
  name = 'Wishlists',
): Promise<Json> {
  counter += 1;
  const slug = `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${counter}`;
  return ok(
    stack,
    'POST',
    '/settings/extensions/custom-apis',
    {
      data: {
        type: 'custom_api',
        name,
        description: `${name} for tests`,
        slug,
        api_type: `${slug.replace(/-/g, '_')}_ext`,
      },
    },
    clientId,
  );
}

export function createEntry(
  stack: Stack,
  api: Json,
  attributes: Record<string, unknown>,
  clientId?: string,
): Promise<Json> {
  return ok(
    stack,
    'POST',
    `/settings/extensions/custom-apis/${api.id}/entries`,
    { data: { type: api.api_type, ...attributes } },
    clientId,
  );
}

/** A cart with custom discounts enabled, one custom item and one discount on that item. */
export async function createCartWithDiscount(
  stack: Stack,
  clientId?: string,
): Promise<{ cartId: string; itemId: string; discountId: string }> {
  const cart = await ok(
    stack,
    'POST',
    '/carts',
    { data: { name: 'Test cart', discount_settings: { custom_discounts_enabled: true } } },
    clientId,
  );
  const items = await ok(
    stack,
    'POST',
    `/carts/${cart.id}/items`,
    {
      data: {
        type: 'custom_item',
        name: 'Mug',
        sku: 'MUG-1',
        quantity: 2,
        price: { amount: 1500, includes_tax: true },
      },
    },
    clientId,
  );
  const itemId = items[0].id;
  const discount = await ok(
    stack,
    'POST',
    `/carts/${cart.id}/items/${itemId}/custom-discounts`,
    {
      data: {
        type: 'custom_discount',
        amount: -500,
        description: 'Loyalty',
        discount_code: 'LOYAL5',
        discount_engine: 'engine-a',
        external_id: 'ext-1',
      },
    },
    clientId,
  );
  return { cartId: cart.id, itemId, discountId: discount.id };
}

/**
 * The first of a mutation's `userErrors` (select `userErrors { code field message }`), with
 * its field path written back in the dotted form of the messages (`input.items[0].sku`); or, if
 * it answered none, the first top-level error's code, for a test to fail on readably.
 */
export function userError(
  body: Json,
  mutation: string,
): { code: string; field: string | null; message: string } | undefined {
  const errors = body.data?.[mutation]?.userErrors;
  const first = Array.isArray(errors) ? errors[0] : undefined;
  if (first === undefined) {
    const top = body.errors?.[0];
    return top === undefined
      ? undefined
      : { code: `top-level ${top.extensions?.code}`, field: null, message: top.message };
  }
  const field =
    first.field === null || first.field === undefined
      ? null
      : (first.field as string[])
          .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`))
          .join('');
  return { code: first.code, field, message: first.message };
}

/** Every code an answer carries: its mutations' userErrors' codes, then its top-level errors'. */
export function codes(body: Json): string[] {
  return [
    ...Object.values(body.data ?? {}).flatMap((payload: Json) =>
      Array.isArray(payload?.userErrors) ? payload.userErrors.map((e: Json) => e.code) : [],
    ),
    ...(body.errors ?? []).map((e: Json) => e.extensions?.code),
  ];
}
