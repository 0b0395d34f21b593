/**
 * The custom discount writes: add, update and delete, on the whole cart and on one of its items.
 * The v2 API (and the embedded service) treats the two levels alike but for the path, so one
 * factory builds the three mutations of a level from its description: its GraphQL name, the
 * input field naming the item (none for the cart), the path below the cart, and the texts.
 */

import { expectResource, type UpstreamRequest } from '../upstream/client.ts';
import type { GatewayContext } from '../upstream/session.ts';
import {
  CART_IDS,
  CART_ITEM_IDS,
  type CartChange,
  cartChangePayload,
  type InputFieldBuilder,
} from './cart-write.ts';
import {
  CustomDiscountRef,
  type CustomDiscountShape,
  toCustomDiscount,
} from './custom-discount.ts';
import { idKind } from './kit/ids.ts';
import { defineMutation, type IdFields, type Ids } from './kit/mutation.ts';
import { judgeDiscountAmount } from './money.ts';
import { judgeNonEmpty } from './rows.ts';

/** The five fields every custom discount write takes, all required (the seed's rule). */
interface DiscountValues {
  amount: number;
  description: string;
  discountCode: string;
  discountEngine: string;
  externalId: string;
}

/** The descriptions of one write, word for word as the schema documents them. */
interface WriteTexts {
  input: string;
  payload: string;
  mutation: string;
}

/** One level the v2 API discounts at. */
interface DiscountLevel {
  /** The middle of every GraphQL name: `add${name}CustomDiscount`, `Delete${name}…Input`, … */
  name: 'Cart' | 'CartItem';
  /** The ids naming what is discounted: the cart, and the item at item level. */
  ids: IdFields<'cartId'> | IdFields<'cartId' | 'cartItemId'>;
  /** The path segments from the cart to what is discounted: `[]` or `['items', id]`. */
  below: (ids: Ids<string>) => string[];
  add: WriteTexts;
  update: WriteTexts;
  delete: WriteTexts;
}

const CART_LEVEL: DiscountLevel = {
  name: 'Cart',
  ids: CART_IDS,
  below: () => [],
  add: {
    input:
      'A custom discount on the whole cart; every field is required. At most five per cart, ' +
      'only on a cart with custom discounts enabled and at least one item (the upstream judges).',
    payload: 'The new cart discount and the cart it changed.',
    mutation: 'Adds a cart-level custom discount (POST /v2/carts/{cartID}/custom-discounts).',
  },
  update: {
    input: 'New values of a cart-level custom discount; every field is required.',
    payload: 'The cart discount after the update and the cart it changed.',
    mutation:
      'Replaces a cart-level custom discount (PUT /v2/carts/{cartID}/custom-discounts/{id}).',
  },
  delete: {
    input: 'The cart-level discount to remove.',
    payload: 'The removed cart discount’s id and the cart it changed.',
    mutation:
      'Removes a cart-level custom discount (DELETE /v2/carts/{cartID}/custom-discounts/{id}).',
  },
};

const ITEM_LEVEL: DiscountLevel = {
  name: 'CartItem',
  ids: CART_ITEM_IDS,
  below: (ids) => ['items', ids.cartItemId as string],
  add: {
    input:
      'A custom discount for a cart item; every field is required. At most five per item, and ' +
      'only on a cart with custom discounts enabled (the upstream judges those two).',
    payload: 'The new item discount and the cart it changed.',
    mutation:
      'Adds a custom discount to a cart item (POST /v2/carts/{cartID}/items/{itemID}/custom-discounts).',
  },
  update: {
    input: 'New values of a custom discount on a cart item; every field is required.',
    payload: 'The custom discount after the update, and the cart it changed.',
    mutation:
      'Replaces a custom discount on a cart item (PUT /v2/carts/{cartID}/items/{cartitemID}/' +
      'custom-discounts/{customdiscountID}).',
  },
  delete: {
    input: 'The item discount to remove.',
    payload: 'The removed item discount’s id and the cart it changed.',
    mutation:
      'Removes a custom discount from a cart item (DELETE /v2/carts/{cartID}/items/{itemID}/' +
      'custom-discounts/{id}).',
  },
};

/** The discount a write changes: no Node, its id is the upstream one only. */
const DISCOUNT_IDS = {
  customDiscountId: [idKind('CustomDiscount', false), 'The custom discount'],
} as const satisfies IdFields<'customDiscountId'>;

const valueInputFields = (t: InputFieldBuilder) => ({
  amount: t.int({
    required: true,
    description: 'The discount in minor units of the cart’s currency; must be below zero.',
  }),
  description: t.string({ required: true, description: 'What the discount is.' }),
  discountCode: t.string({ required: true, description: 'The code that was used.' }),
  discountEngine: t.string({
    required: true,
    description: 'The system the discount is applied from.',
  }),
  externalId: t.string({ required: true, description: 'The discount’s id in that system.' }),
});

/** The path of a level's discounts, from the judged ids. */
function discountsPath(level: DiscountLevel, ids: Ids<string>): string[] {
  return ['carts', ids.cartId as string, ...level.below(ids), 'custom-discounts'];
}

/** The v2 body of a custom discount, every field judged before any call. */
function discountBody(input: DiscountValues) {
  return {
    data: {
      type: 'custom_discount',
      amount: judgeDiscountAmount(input.amount, 'input.amount'),
      description: judgeNonEmpty(input.description, 'input.description'),
      discount_code: judgeNonEmpty(input.discountCode, 'input.discountCode'),
      discount_engine: judgeNonEmpty(input.discountEngine, 'input.discountEngine'),
      external_id: judgeNonEmpty(input.externalId, 'input.externalId'),
    },
  };
}

/** The discount as the write answered it, read by the payload's field (cart-write.ts). */
interface DiscountChange extends CartChange {
  customDiscount: () => CustomDiscountShape;
}

interface DeletedDiscount extends CartChange {
  deletedId: string;
}

/** An add or an update: the discount it answered is read by the payload, lazily. */
async function writeDiscount(
  context: GatewayContext,
  cartId: string,
  request: UpstreamRequest,
): Promise<DiscountChange> {
  const response = await context.write(request);
  return { cartId, customDiscount: () => toCustomDiscount(expectResource(response)) };
}

function discountPayload(name: string, description: string) {
  return cartChangePayload<DiscountChange>(name, description, (t) => ({
    customDiscount: t.field({
      type: CustomDiscountRef,
      nullable: true,
      description:
        'The discount as stored, its amount as amount, currency and formatted (null, with a ' +
        'WRITE_COMMITTED error, when the write happened but its answer was unusable).',
      resolve: (change) => change.customDiscount(),
    }),
  }));
}

/** Adds `add${name}CustomDiscount`, `update…` and `delete…` of one level to the schema. */
function defineDiscountMutations(level: DiscountLevel): void {
  const { name } = level;
  const withDiscount = { ...level.ids, ...DISCOUNT_IDS } as IdFields<string>;

  defineMutation<DiscountChange, string>(`add${name}CustomDiscount`, {
    description: level.add.mutation,
    ids: level.ids as IdFields<string>,
    input: { description: level.add.input, fields: valueInputFields },
    payload: discountPayload(`Add${name}CustomDiscountPayload`, level.add.payload),
    resolve: (input, context, ids) =>
      writeDiscount(context, ids.cartId as string, {
        method: 'POST',
        segments: discountsPath(level, ids),
        body: discountBody(input as DiscountValues),
      }),
  });

  defineMutation<DiscountChange, string>(`update${name}CustomDiscount`, {
    description: level.update.mutation,
    ids: withDiscount,
    input: { description: level.update.input, fields: valueInputFields },
    payload: discountPayload(`Update${name}CustomDiscountPayload`, level.update.payload),
    resolve: (input, context, ids) =>
      writeDiscount(context, ids.cartId as string, {
        method: 'PUT',
        segments: [...discountsPath(level, ids), ids.customDiscountId as string],
        body: discountBody(input as DiscountValues),
      }),
  });

  defineMutation<DeletedDiscount, string>(`delete${name}CustomDiscount`, {
    description: level.delete.mutation,
    ids: withDiscount,
    input: { description: level.delete.input },
    payload: cartChangePayload<DeletedDiscount>(
      `Delete${name}CustomDiscountPayload`,
      level.delete.payload,
      (t) => ({
        deletedId: t.exposeID('deletedId', {
          description: 'Upstream id of the discount that was removed.',
        }),
      }),
    ),
    resolve: async (_input, context, ids) => {
      const deletedId = ids.customDiscountId as string;
      await context.write({
        method: 'DELETE',
        segments: [...discountsPath(level, ids), deletedId],
      });
      return { cartId: ids.cartId as string, deletedId };
    },
  });
}

defineDiscountMutations(ITEM_LEVEL);
defineDiscountMutations(CART_LEVEL);
