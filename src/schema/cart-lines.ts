/**
 * Carts as a storefront fills them: several lines in one mutation (`addCartItems`, over the
 * upstream's bulk add: `data` as a list, `options.add_all_or_nothing`), a bundle line with its
 * chosen options, a guest's cart merged into the signed-in shopper's (`mergeCart`, the v2
 * `cart_items` entry) and a cart given to a shopper (`associateCart`, POST
 * /v2/carts/{id}/relationships/customers|accounts), as storefronts do at sign-in. The lines'
 * catalog products (`CartItem.product`, `OrderItem.product`) are one batched upstream call for
 * the whole operation, images included.
 */
import type { JsonObject } from '../upstream/client.ts';
import {
  BadUserInputError,
  ConflictError,
  type GatewayError,
  isUserError,
  NotFoundError,
  OutOfStockError,
  PriceNotFoundError,
  type UserErrorCode,
} from '../upstream/errors.ts';
import type { GatewayContext } from '../upstream/session.ts';
import { builder } from './builder.ts';
import {
  BundleConfigurationInput,
  BundleConfigurationRef,
  judgeBundleConfiguration,
  PRODUCT,
} from './bundle-configuration.ts';
import { CART } from './cart.ts';
import { CartItemRef } from './cart-item.ts';
import { CustomItemPriceInput, judgeQuantity, MAX_QUANTITY } from './cart-mutations.ts';
import { CART_IDS, type CartChange, cartChangePayload, writeItems } from './cart-write.ts';
import { PRODUCT_INCLUDE, Products } from './catalog/storefront.ts';
import { idKind, judgeId, optionalIdInput } from './kit/ids.ts';
import { defineMutation, fieldPath, partlyDone, type UserErrorShape } from './kit/mutation.ts';
import { judgeLineTotal } from './money.ts';
import { OrderItemRef } from './order.ts';
import { judgeSku } from './pcm/judges.ts';
import { judgeNonEmpty } from './rows.ts';

/** The upstream's bound on one bulk add (and on a cart's distinct lines). */
const MAX_LINES = 100;

// ---- the lines' products and bundles -----------------------------------------------------------

/** One batched call per 100 products of the operation (`filter=in(id,…)`), images included. */
async function catalogProduct(context: GatewayContext, productId: string | null) {
  if (productId === null) return null;
  const row = await context
    .byAttributeLoader(['/catalog', 'products'], 'id', PRODUCT_INCLUDE)
    .load(productId);
  return row === null ? null : Products.read(row);
}

const productAbout =
  'The catalog product of the line, with its images (as the caller’s catalog shows it now); ' +
  'null for a custom line or a product the catalog no longer shows. The lines of one operation ' +
  'are read in one upstream call (per 100 products).';

for (const ref of [CartItemRef, OrderItemRef] as const) {
  builder.objectFields(ref as typeof CartItemRef, (t) => ({
    product: t.field({
      type: Products.ref,
      nullable: true,
      description: productAbout,
      resolve: (item, _args, context) => catalogProduct(context, item.productId),
      // One batched call per 100 items (as Product.stock): the query cost counts a share.
      extensions: { upstreamCalls: 1 / 100 },
    }),
    productId: t.exposeID('productId', {
      nullable: true,
      description: 'The catalog product of the line (upstream id); null for a custom line.',
    }),
    bundleConfiguration: t.field({
      type: BundleConfigurationRef,
      nullable: true,
      description: 'The options chosen for a bundle line; null for any other line.',
      resolve: (item) => item.bundleConfiguration,
    }),
  }));
}

// ---- addCartItems ------------------------------------------------------------------------------

const CustomLineInput = builder.inputType('CartCustomLineInput', {
  description: 'A custom line (not from a catalog): its name, SKU and unit price.',
  fields: (t) => ({
    name: t.string({ required: true, description: 'Item name.' }),
    sku: t.string({ required: true, description: 'Stock keeping unit.' }),
    description: t.string({ required: false, description: 'Item description.' }),
    price: t.field({ type: CustomItemPriceInput, required: true, description: 'Unit price.' }),
  }),
});

const CartLineInput = builder.inputType('CartLineInput', {
  description:
    'One line to add: a catalog product (exactly one of productId and sku, a bundle with its ' +
    '`bundleConfiguration`) or a `custom` line.',
  fields: (t) => ({
    productId: optionalIdInput(t, PRODUCT, 'The catalog product'),
    sku: t.string({ required: false, description: 'The catalog product’s SKU.' }),
    quantity: t.int({ required: true, description: `Units, 1 to ${MAX_QUANTITY}.` }),
    bundleConfiguration: t.field({
      type: BundleConfigurationInput,
      required: false,
      description: 'For a bundle: the options chosen; default the bundle’s own.',
    }),
    custom: t.field({
      type: CustomLineInput,
      required: false,
      description: 'A custom line instead of a catalog product.',
    }),
  }),
});

type LineGiven = {
  productId?: string | number | null;
  sku?: string | null;
  quantity: number;
  bundleConfiguration?: Parameters<typeof judgeBundleConfiguration>[0] | null;
  custom?: {
    name: string;
    sku: string;
    description?: string | null;
    price: { amount: number; includesTax?: boolean | null };
  } | null;
};

/** A line judged: its v2 entry, and what names it in upstream messages. */
interface JudgedLine {
  entry: JsonObject;
  custom: boolean;
  productId: string | null;
  sku: string | null;
}

const given = (value: unknown) => value !== null && value !== undefined;

function judgeLine(line: LineGiven, at: string): JudgedLine {
  const quantity = judgeQuantity(line.quantity, `${at}.quantity`, 1);
  const named = [line.productId, line.sku, line.custom].filter(given).length;
  if (named !== 1) {
    throw new BadUserInputError(`Give exactly one of ${at}.productId, ${at}.sku and ${at}.custom`, {
      field: `${at}.productId`,
    });
  }
  if (line.custom) {
    if (given(line.bundleConfiguration)) {
      throw new BadUserInputError(`${at}.bundleConfiguration is for a catalog bundle only`, {
        field: `${at}.bundleConfiguration`,
      });
    }
    const { price } = line.custom;
    if (price.amount < 0) {
      throw new BadUserInputError(`${at}.custom.price.amount must not be negative`, {
        field: `${at}.custom.price.amount`,
      });
    }
    judgeLineTotal(price.amount, quantity, {
      unitAmount: `${at}.custom.price.amount`,
      quantity: `${at}.quantity`,
    });
    const sku = judgeNonEmpty(line.custom.sku, `${at}.custom.sku`);
    const entry: JsonObject = {
      type: 'custom_item',
      name: judgeNonEmpty(line.custom.name, `${at}.custom.name`),
      sku,
      quantity,
      price: { amount: price.amount, includes_tax: price.includesTax ?? true },
    };
    const description = line.custom.description;
    if (given(description)) {
      entry.description = judgeNonEmpty(description as string, `${at}.custom.description`);
    }
    return { entry, custom: true, productId: null, sku };
  }
  const productId = given(line.productId)
    ? judgeId(String(line.productId), `${at}.productId`, PRODUCT)
    : null;
  const sku = productId === null ? judgeSku(line.sku as string, `${at}.sku`) : null;
  const entry: JsonObject =
    productId === null
      ? { type: 'cart_item', sku, quantity }
      : { type: 'cart_item', id: productId, quantity };
  if (line.bundleConfiguration) {
    entry.bundle_configuration = judgeBundleConfiguration(
      line.bundleConfiguration,
      `${at}.bundleConfiguration`,
    );
  }
  return { entry, custom: false, productId, sku };
}

/** The v2 field of an entry (`data[2].bundle_configuration…`) as the input field. */
const FIELDS: Record<string, (line: JudgedLine) => string> = {
  quantity: () => 'quantity',
  id: () => 'productId',
  sku: (line) => (line.custom ? 'custom.sku' : 'sku'),
  bundle_configuration: () => 'bundleConfiguration',
  name: () => 'custom.name',
  description: () => 'custom.description',
  price: () => 'custom.price.amount',
};

/**
 * The line a refusal is about: the entry its source or message names (`data[1].quantity`),
 * else the line whose product or SKU the message names; the whole list when neither says.
 */
function lineField(text: string, lines: readonly JudgedLine[], code: UserErrorCode): string {
  const at = /data\[(\d+)\](?:\.([a-z_]+))?/.exec(text);
  let index = at === null ? -1 : Number(at[1]);
  if (index < 0 || index >= lines.length) {
    index = lines.findIndex(
      (line) =>
        (line.productId !== null && text.includes(line.productId)) ||
        (line.sku !== null && text.includes(line.sku)),
    );
  }
  const line = lines[index];
  if (line === undefined) return 'input.lines';
  const path = `input.lines[${index}]`;
  if (code === 'OUT_OF_STOCK') return `${path}.quantity`;
  if (code === 'PRICE_NOT_FOUND') return `${path}.${line.productId === null ? 'sku' : 'productId'}`;
  const sub = at?.[2] === undefined ? undefined : FIELDS[at[2]]?.(line);
  return sub === undefined ? path : `${path}.${sub}`;
}

/** The code of an upstream refusal of one line, by its status and words. */
function codeOf(status: number, detail: string): UserErrorCode {
  if (status === 404) return 'NOT_FOUND';
  if (status === 409) return 'CONFLICT';
  if (/insufficient stock/i.test(detail)) return 'OUT_OF_STOCK';
  if (/has no (price|SKU)/i.test(detail)) return 'PRICE_NOT_FOUND';
  return 'BAD_USER_INPUT';
}

const ERROR_CLASSES = {
  NOT_FOUND: NotFoundError,
  CONFLICT: ConflictError,
  OUT_OF_STOCK: OutOfStockError,
  PRICE_NOT_FOUND: PriceNotFoundError,
  BAD_USER_INPUT: BadUserInputError,
} as const;

/** An all-or-nothing refusal (nothing was added), placed on the line it is about. */
function placed(error: unknown, lines: readonly JudgedLine[], cartId: string): unknown {
  if (!isUserError(error) || error.field !== undefined) return error;
  const status = error.upstreamStatus ?? 400;
  // A 404 that names no line is the cart's.
  const code = codeOf(status, error.message);
  const field = lineField(error.message, lines, code);
  if (code === 'NOT_FOUND' && (field === 'input.lines' || error.message.includes(cartId))) {
    return error;
  }
  const Class = ERROR_CLASSES[code as keyof typeof ERROR_CLASSES] ?? BadUserInputError;
  return new Class(error.message, { upstreamStatus: status, field, cause: error as GatewayError });
}

interface UpstreamItemError {
  status?: unknown;
  detail?: unknown;
  title?: unknown;
  source?: unknown;
}

/** The `errors` of a 201 (the lines not added) as user errors, each at its line. */
function refusedLines(
  body: unknown,
  where: (text: string, code: UserErrorCode) => string,
): UserErrorShape[] {
  const errors = (body as { errors?: unknown } | null)?.errors;
  if (!Array.isArray(errors)) return [];
  return (errors as UpstreamItemError[]).map((error) => {
    const status = typeof error?.status === 'number' ? error.status : Number(error?.status ?? 400);
    const detail =
      typeof error?.detail === 'string'
        ? error.detail
        : typeof error?.title === 'string'
          ? error.title
          : 'This line was not added';
    const code = codeOf(status, detail);
    const source = typeof error?.source === 'string' ? error.source : '';
    return { code, field: fieldPath(where(`${source} ${detail}`, code)), message: detail };
  });
}

defineMutation('addCartItems', {
  description:
    'Adds several lines to a cart in one call (POST /v2/carts/{cartID}/items with `data` as a ' +
    'list): catalog products by id or SKU (bundles with their chosen options) and custom ' +
    'lines. With `allOrNothing` (the default) one refused line refuses them all and nothing is ' +
    'added; without it the other lines are added and each refused one is a `userErrors` entry ' +
    'with its path (`["input", "lines", "2", "quantity"]`) beside the cart.',
  ids: CART_IDS,
  input: {
    description: 'The lines to add to a cart, in order.',
    fields: (t) => ({
      lines: t.field({
        type: [CartLineInput],
        required: true,
        description: `The lines, 1 to ${MAX_LINES}.`,
      }),
      allOrNothing: t.boolean({
        required: false,
        description:
          'Whether one refused line refuses them all (v2 `options.add_all_or_nothing`). ' +
          'Default true.',
      }),
    }),
  },
  payload: cartChangePayload(
    'AddCartItemsPayload',
    'The cart with the lines added (a product already in the cart has its quantity raised).',
  ),
  resolve: async (input, context, { cartId }) => {
    if (input.lines.length === 0 || input.lines.length > MAX_LINES) {
      throw new BadUserInputError(`input.lines must list 1 to ${MAX_LINES} lines`, {
        field: 'input.lines',
      });
    }
    const lines = input.lines.map((line, i) => judgeLine(line as LineGiven, `input.lines[${i}]`));
    const allOrNothing = input.allOrNothing ?? true;
    let change: CartChange;
    try {
      change = await writeItems(context, cartId, {
        method: 'POST',
        segments: ['carts', cartId, 'items'],
        body: {
          data: lines.map((line) => line.entry),
          options: { add_all_or_nothing: allOrNothing },
        },
      });
    } catch (error) {
      throw placed(error, lines, cartId);
    }
    return partlyDone(
      change,
      refusedLines(change.itemsBody, (text, code) => lineField(text, lines, code)),
    );
  },
});

// ---- sign-in: merging and associating -------------------------------------------------------------

defineMutation('mergeCart', {
  description:
    'Adds every line of another cart (a guest’s) to this one (POST /v2/carts/{cartID}/items, ' +
    '`cart_items`): catalog lines priced as this cart prices them, a product already here gets ' +
    'the quantity added; the other cart stays as it was. A line that could not be added is a ' +
    '`userErrors` entry at `fromCartId`, beside the cart with the others.',
  ids: { ...CART_IDS, fromCartId: [CART, 'The cart whose lines to add'] },
  input: { description: 'The cart to merge into (`cartId`) and the one merged (`fromCartId`).' },
  payload: cartChangePayload('MergeCartPayload', 'The cart with the other cart’s lines added.'),
  resolve: async (_input, context, { cartId, fromCartId }) => {
    if (cartId === fromCartId) {
      throw new BadUserInputError('input.fromCartId must name another cart than input.cartId', {
        field: 'input.fromCartId',
      });
    }
    let change: CartChange;
    try {
      change = await writeItems(context, cartId, {
        method: 'POST',
        segments: ['carts', cartId, 'items'],
        body: { data: { type: 'cart_items', cart_id: fromCartId } },
      });
    } catch (error) {
      if (!isUserError(error) || error.field !== undefined) throw error;
      const about = error.message.includes(fromCartId) ? 'input.fromCartId' : 'input.cartId';
      const Class = ERROR_CLASSES[error.code as keyof typeof ERROR_CLASSES] ?? BadUserInputError;
      throw new Class(error.message, {
        upstreamStatus: error.upstreamStatus,
        field: about,
        cause: error,
      });
    }
    return partlyDone(
      change,
      refusedLines(change.itemsBody, () => 'input.fromCartId'),
    );
  },
});

const CUSTOMER = idKind('Customer');
const ACCOUNT = idKind('Account');

defineMutation('associateCart', {
  description:
    'Makes a cart a shopper’s (POST /v2/carts/{cartID}/relationships/customers or …/accounts), ' +
    'as a storefront does with a guest’s cart at sign-in: with the shopper’s own token ' +
    '(X-Moltin-Customer-Token, or the account member’s EP-Account-Management-Authentication-' +
    'Token) for themself, with the store’s token for anyone. Already theirs: done; another ' +
    'shopper’s: FORBIDDEN.',
  ids: CART_IDS,
  input: {
    description: 'The cart and its shopper: exactly one of customerId and accountId.',
    fields: (t) => ({
      customerId: optionalIdInput(t, CUSTOMER, 'The customer'),
      accountId: optionalIdInput(t, ACCOUNT, 'The account'),
    }),
  },
  payload: cartChangePayload('AssociateCartPayload', 'The cart, now the shopper’s.'),
  resolve: async (input, context, { cartId }) => {
    if (given(input.customerId) === given(input.accountId)) {
      throw new BadUserInputError('Give exactly one of input.customerId and input.accountId', {
        field: 'input.customerId',
      });
    }
    const [kind, id] = given(input.customerId)
      ? (['customer', judgeId(String(input.customerId), 'input.customerId', CUSTOMER)] as const)
      : (['account', judgeId(String(input.accountId), 'input.accountId', ACCOUNT)] as const);
    try {
      await context.write({
        method: 'POST',
        segments: ['carts', cartId, 'relationships', `${kind}s`],
        body: { data: [{ type: kind, id }] },
      });
    } catch (error) {
      if (!isUserError(error) || error.code !== 'NOT_FOUND' || !error.message.includes(id)) {
        throw error;
      }
      throw new NotFoundError(error.message, {
        upstreamStatus: error.upstreamStatus,
        field: `input.${kind}Id`,
        cause: error,
      });
    }
    return { cartId };
  },
});
