/**
 * `addCartProductItem`: a catalog product into a cart, by id or SKU, priced by the upstream from
 * the catalog that applies to the cart in the cart's currency. The two refusals a shopper can act
 * on get codes of their own: OUT_OF_STOCK and PRICE_NOT_FOUND (the upstream says them as 400s).
 */

import type { JsonObject } from '../../upstream/client.ts';
import {
  BadUserInputError,
  isGatewayError,
  OutOfStockError,
  PriceNotFoundError,
} from '../../upstream/errors.ts';
import { BundleConfigurationInput, judgeBundleConfiguration } from '../bundle-configuration.ts';
import { judgeQuantity, MAX_QUANTITY } from '../cart-mutations.ts';
import { CART_IDS, cartChangePayload, writeItems } from '../cart-write.ts';
import { idKind, judgeId, optionalIdInput } from '../kit/ids.ts';
import { defineMutation } from '../kit/mutation.ts';
import { judgeSku } from '../pcm/judges.ts';

/** A catalog product (the shopper's `Product`). */
const PRODUCT = idKind('Product');

/** The upstream's 400s that mean "not enough stock" and "no price in this currency". */
function coded(error: unknown, product: 'input.productId' | 'input.sku'): unknown {
  if (!isGatewayError(error) || error.code !== 'BAD_USER_INPUT') return error;
  const options = { upstreamStatus: error.upstreamStatus, field: 'input.quantity', cause: error };
  if (/insufficient stock/i.test(error.message)) return new OutOfStockError(error.message, options);
  if (/has no (price|SKU)/i.test(error.message)) {
    // The field that named the product: a form shows it there.
    return new PriceNotFoundError(error.message, { ...options, field: product });
  }
  if (error.field === undefined && /\bdata\.bundle_configuration\b/.test(error.message)) {
    // The bundle's options were refused: a form shows it at the options.
    return new BadUserInputError(error.message, { ...options, field: 'input.bundleConfiguration' });
  }
  return error;
}

defineMutation('addCartProductItem', {
  description:
    'Adds a catalog product to a cart (POST /v2/carts/{cartID}/items, `cart_item`), priced ' +
    'from the catalog in the cart’s currency. OUT_OF_STOCK when its stock is short, ' +
    'PRICE_NOT_FOUND when it has no price in that currency.',
  ids: CART_IDS,
  input: {
    description: 'A catalog product to add to a cart: give exactly one of productId and sku.',
    fields: (t) => ({
      productId: optionalIdInput(t, PRODUCT, 'The catalog product'),
      sku: t.string({ required: false, description: 'The product’s SKU.' }),
      quantity: t.int({ required: true, description: `Units, 1 to ${MAX_QUANTITY}.` }),
      bundleConfiguration: t.field({
        type: BundleConfigurationInput,
        required: false,
        description: 'For a bundle: the options chosen; default the bundle’s own.',
      }),
    }),
  },
  payload: cartChangePayload(
    'AddCartProductItemPayload',
    'The cart with the product added (or its quantity raised, if it was in the cart).',
  ),
  resolve: async (input, context, { cartId }) => {
    const quantity = judgeQuantity(input.quantity, 'input.quantity', 1);
    const byId = input.productId !== null && input.productId !== undefined;
    const bySku = input.sku !== null && input.sku !== undefined;
    if (byId === bySku) {
      throw new BadUserInputError('Give exactly one of input.productId and input.sku', {
        field: 'input.productId',
      });
    }
    const data: JsonObject = byId
      ? {
          type: 'cart_item',
          id: judgeId(input.productId as string, 'input.productId', PRODUCT),
          quantity,
        }
      : { type: 'cart_item', sku: judgeSku(input.sku as string, 'input.sku'), quantity };
    if (input.bundleConfiguration) {
      data.bundle_configuration = judgeBundleConfiguration(
        input.bundleConfiguration,
        'input.bundleConfiguration',
      );
    }
    try {
      return await writeItems(context, cartId, {
        method: 'POST',
        segments: ['carts', cartId, 'items'],
        body: { data },
      });
    } catch (error) {
      throw coded(error, byId ? 'input.productId' : 'input.sku');
    }
  },
});
