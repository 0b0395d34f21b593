/**
 * The merchandiser's writes on price books, prices, catalogs and rules (described once each:
 * ./writes.ts), publishing a catalog, and setting stock. Amounts are minor units within
 * 0..2^31−1, currencies ISO 4217, lists bounded as the service bounds them.
 */
import { expectResource } from '../../upstream/client.ts';
import { BadUserInputError } from '../../upstream/errors.ts';
import type { GatewayContext } from '../../upstream/session.ts';
import { builder } from '../builder.ts';
import { idInput, idKind, judgeId } from '../kit/ids.ts';
import { defineMutation } from '../kit/mutation.ts';
import { type AttributeInput, attribute, defineWrites, payloadOf, write } from '../kit/writes.ts';
import { CatalogReleases, CatalogRules, Catalogs } from './catalogs.ts';
import {
  judgeAmount,
  judgeChannel,
  judgeCurrency,
  judgeDescription,
  judgeInstant,
  judgeInt32,
  judgeList,
  judgeName,
  judgeQuantity,
  judgeRef,
  judgeSku,
} from './judges.ts';
import { PriceBooks, ProductPrices } from './prices.ts';
import { StockLevels } from './stock.ts';

// ---- currency maps: a list in GraphQL, `{USD:{amount, includes_tax}}` upstream ----

interface CurrencyAmountInputShape {
  currency: string;
  amount: number;
  includesTax?: boolean | null;
}

const CurrencyAmountInput = builder.inputType('CurrencyAmountInput', {
  description: 'An amount in one currency, in minor units (cents).',
  fields: (t) => ({
    currency: t.string({ required: true, description: 'ISO 4217 code, e.g. USD.' }),
    amount: t.int({ required: true, description: `Minor units, 0 to ${2 ** 31 - 1}.` }),
    includesTax: t.boolean({ required: false, description: 'Tax included (default false).' }),
  }),
});

/** 1 to 50 currencies, each once, as the upstream's map. */
function currencyMap(values: readonly CurrencyAmountInputShape[], field: string) {
  const list = judgeList(
    values,
    field,
    50,
    (value, at) => ({
      currency: judgeCurrency(value.currency, `${at}.currency`),
      amount: judgeAmount(value.amount, `${at}.amount`),
      includesTax: value.includesTax ?? false,
    }),
    1,
  );
  const map: Record<string, { amount: number; includes_tax: boolean }> = {};
  for (const [i, { currency, amount, includesTax }] of list.entries()) {
    if (currency in map) {
      throw new BadUserInputError(`${field}[${i}].currency repeats ${currency}`, {
        field: `${field}[${i}].currency`,
      });
    }
    map[currency] = { amount, includes_tax: includesTax };
  }
  return map;
}

const currencies = (key: string, description: string): AttributeInput => ({
  key,
  requiredOnCreate: true,
  judge: currencyMap as AttributeInput['judge'],
  input: (t, required) => t.field({ type: [CurrencyAmountInput], required, description }),
});

interface SaleInputShape {
  id: string;
  validFrom?: string | null;
  validTo?: string | null;
  currencies: readonly CurrencyAmountInputShape[];
}

const PriceSaleInput = builder.inputType('PriceSaleInput', {
  description: 'A sale of a price; several sales each need a schedule.',
  fields: (t) => ({
    id: t.string({ required: true, description: 'Its name in the price (1-255 characters).' }),
    validFrom: t.field({ type: 'DateTime', required: false, description: 'Start.' }),
    validTo: t.field({ type: 'DateTime', required: false, description: 'End.' }),
    currencies: t.field({
      type: [CurrencyAmountInput],
      required: true,
      description: 'The sale amounts.',
    }),
  }),
});

const sales: AttributeInput = {
  key: 'sales',
  judge: ((values: readonly SaleInputShape[], field: string) => {
    const map: Record<string, unknown> = {};
    judgeList(values, field, 20, (sale, at) => {
      const id = judgeName(sale.id, `${at}.id`);
      if (id in map) throw new BadUserInputError(`${at}.id repeats a sale`, { field: `${at}.id` });
      const from = sale.validFrom == null ? null : judgeInstant(sale.validFrom, `${at}.validFrom`);
      const to = sale.validTo == null ? null : judgeInstant(sale.validTo, `${at}.validTo`);
      map[id] = {
        currencies: currencyMap(sale.currencies, `${at}.currencies`),
        ...(from === null && to === null ? {} : { schedule: { valid_from: from, valid_to: to } }),
      };
      return id;
    });
    return map;
  }) as AttributeInput['judge'],
  input: (t, required) =>
    t.field({ type: [PriceSaleInput], required, description: 'Sales (at most 20).' }),
};

defineWrites({
  resource: PriceBooks,
  field: 'priceBook',
  type: 'pricebook',
  attributes: {
    name: attribute.string('name', 'Name.', judgeName, true),
    description: attribute.string('description', 'Description.', judgeDescription),
    externalRef: attribute.string('external_ref', 'Reference in another system.', judgeRef),
  },
  create: 'Creates a price book',
  update: 'Changes a price book',
  delete: 'Deletes a price book with its prices',
});

defineWrites({
  resource: ProductPrices,
  field: 'price',
  type: 'product-price',
  params: { priceBookId: [idKind('PriceBook'), 'The price book'] },
  attributes: {
    sku: attribute.string('sku', 'The SKU priced.', judgeSku, true),
    currencies: currencies('currencies', 'The amounts, one per currency (1 to 50).'),
    sales,
  },
  readParams: ({ priceBookId }) => ({ priceBookId: priceBookId as string }),
  create: 'Prices a SKU in a price book',
  update: 'Changes a price: the currencies given replace the map; sales likewise',
  delete: 'Deletes a price',
});

const CatalogPriceBookInput = builder.inputType('CatalogPriceBookInput', {
  description: 'A price book of a catalog with its priority.',
  fields: (t) => ({
    priceBookId: idInput(t, idKind('PriceBook'), 'The price book'),
    priority: t.int({ required: false, description: 'Higher wins (default 0).' }),
  }),
});

defineWrites({
  resource: Catalogs,
  // Named as its queries (pcmCatalog, pcmCatalogs): the shopper's `catalog` is another thing.
  name: 'PcmCatalog',
  field: 'catalog',
  type: 'catalog',
  attributes: {
    name: attribute.string('name', 'Name.', judgeName, true),
    description: attribute.string('description', 'Description.', judgeDescription),
    hierarchyIds: attribute.ids(
      'hierarchy_ids',
      idKind('PcmHierarchy'),
      'Its hierarchies (1 to 100)',
      100,
      1,
      true,
    ),
    priceBooks: {
      key: 'pricebook_ids',
      judge: ((books: readonly { priceBookId: string; priority?: number | null }[], f: string) =>
        judgeList(books, f, 5, (book, at) => ({
          id: judgeId(book.priceBookId, `${at}.priceBookId`, idKind('PriceBook')),
          priority: judgeInt32(book.priority ?? 0, `${at}.priority`),
        }))) as AttributeInput['judge'],
      input: (t, required) =>
        t.field({
          type: [CatalogPriceBookInput],
          required,
          description: 'Its price books (at most 5).',
        }),
    },
  },
  create: 'Creates a catalog; publish it to show it',
  update: 'Changes a catalog; its releases stay',
  delete: 'Deletes a catalog with its releases',
});

const judgeRuleName = (value: string, field: string) => {
  judgeName(value, field);
  if (/\s/u.test(value)) throw new BadUserInputError(`${field} must not contain spaces`, { field });
  return value;
};
const names = (key: string, description: string) =>
  attribute.strings(key, description, (values, f) => judgeList(values, f, 100, judgeChannel));
const ids = (key: string, type: string, description: string) =>
  attribute.ids(key, idKind(type), description, 100);

defineWrites({
  resource: CatalogRules,
  field: 'rule',
  type: 'catalog_rule',
  attributes: {
    name: attribute.string('name', 'Name (no spaces).', judgeRuleName, true),
    catalogId: attribute.id('catalog_id', idKind('Catalog'), 'The catalog it gives', true),
    description: attribute.string('description', 'Description.', judgeDescription),
    channels: names('channels', 'EP-Channel values it matches (at most 100).'),
    tags: names('tags', 'EP-Context-Tag values it matches (at most 100).'),
    customerIds: ids('customer_ids', 'Customer', 'Customers it matches (at most 100)'),
    accountIds: ids('account_ids', 'Account', 'Accounts it matches (at most 100)'),
  },
  create: 'Creates a rule giving a catalog',
  update: 'Changes a rule',
  delete: 'Deletes a rule',
});

// ---- publishing ----

const releasePayload = payloadOf(CatalogReleases, 'release', 'The release and its status.');

defineMutation('publishPcmCatalog', {
  description:
    'Publishes a catalog: a new release snapshots its live products, hierarchies and prices ' +
    '(the newest three releases are kept). `release.status` says whether it is published.',
  ids: { catalogId: [idKind('Catalog'), 'The catalog'] },
  input: { description: 'The catalog to publish.' },
  payload: releasePayload,
  resolve: (_input, context, { catalogId }) => {
    return write(context, 'POST', ['/pcm', 'catalogs', catalogId, 'releases'], undefined, {
      catalogId,
    });
  },
});

// ---- stock ----

const stockPayload = payloadOf(StockLevels, 'stockLevel', 'The stock after the write.');

const StockActionEnum = builder.enumType('StockAction', {
  description: 'A stock movement.',
  values: {
    INCREMENT: { value: 'increment', description: 'Adds to total and available.' },
    DECREMENT: { value: 'decrement', description: 'Removes from total and available.' },
    ALLOCATE: { value: 'allocate', description: 'Moves available to allocated.' },
    DEALLOCATE: { value: 'deallocate', description: 'Moves allocated back to available.' },
    SET: { value: 'set', description: 'Sets the total (available follows).' },
  },
});

defineMutation('setStock', {
  description:
    'Starts managing a product’s stock with `quantity` units (CONFLICT when it is already ' +
    'managed), or, with `action`, moves it (a stock transaction).',
  input: {
    description: 'A product’s stock: managed from now on with this quantity, or moved.',
    fields: (t) => ({
      quantity: t.int({ required: true, description: `0 to ${2 ** 31 - 1} units.` }),
      action: t.field({
        type: StockActionEnum,
        required: false,
        description:
          'A movement of managed stock; without it, starts managing it (quantity units).',
      }),
    }),
  },
  ids: { productId: [idKind('PcmProduct'), 'The product'] },
  payload: stockPayload,
  resolve: async (input, context, { productId }) => {
    const action = input.action ?? undefined;
    const quantity = judgeQuantity(
      input.quantity,
      'input.quantity',
      action === undefined || action === 'set' ? 0 : 1,
    );
    if (action === undefined) {
      return write(context, 'POST', ['inventories', productId], {
        data: { type: 'stock', quantity },
      });
    }
    await context.write({
      method: 'POST',
      segments: ['inventories', productId, 'transactions'],
      body: { data: { type: 'stock-transaction', action, quantity } },
    });
    // The transaction's answer is the movement; the payload reads the stock after it.
    return {
      row: async (after: GatewayContext) =>
        expectResource(await after.get(['inventories', productId])),
      params: {},
    };
  },
});
