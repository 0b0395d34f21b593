/**
 * Price books (`/pcm/pricebooks`), their prices keyed by SKU with a currency map in minor
 * units (and sales), and their price modifiers, as described resources. The lists have no
 * `sort` and do not filter on `in(id,…)`: offset connections, single rows read from their item
 * path.
 */
import { isJsonObject, type JsonObject } from '../../upstream/client.ts';
import { builder } from '../builder.ts';
import { eqFilter } from '../connection.ts';
import { idKind } from '../kit/ids.ts';
import { defineResource, field } from '../resource.ts';
import { readBoolean, readInt, unusable } from '../rows.ts';

/** One currency of a price, a sale or a modifier. */
export interface CurrencyAmountShape {
  currency: string;
  amount: number;
  includesTax: boolean;
}

export const CurrencyAmountRef = builder
  .objectRef<CurrencyAmountShape>('CurrencyAmount')
  .implement({
    description: 'An amount in one currency, in minor units (cents), as a price book keeps it.',
    fields: (t) => ({
      currency: t.exposeString('currency', { description: 'ISO 4217 code, e.g. USD.' }),
      amount: t.exposeInt('amount', { description: 'Minor units (1999 is 19.99 USD).' }),
      includesTax: t.exposeBoolean('includesTax', { description: 'Whether tax is included.' }),
    }),
  });

/** `{USD: {amount, includes_tax}}` → a list in the map's order; an unusable one names its place. */
function currencyList(value: unknown, where: string): CurrencyAmountShape[] {
  if (value === undefined || value === null) return [];
  if (!isJsonObject(value)) throw unusable(`${where} is not an object`);
  return Object.entries(value).map(([currency, entry]) => {
    if (!isJsonObject(entry)) throw unusable(`${where}.${currency} is not an object`);
    return {
      currency,
      amount: readInt(entry, 'amount', `${where}.${currency}`),
      includesTax:
        entry.includes_tax === undefined
          ? false
          : readBoolean(entry, 'includes_tax', `${where}.${currency}`),
    };
  });
}

interface SaleShape {
  id: string;
  validFrom: string | null;
  validTo: string | null;
  currencies: CurrencyAmountShape[];
}

const PriceSaleRef = builder.objectRef<SaleShape>('PriceSale').implement({
  description: 'A sale of a price: other amounts, during a schedule (or always).',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'The sale’s name in the price.' }),
    validFrom: t.expose('validFrom', {
      type: 'DateTime',
      nullable: true,
      description: 'Start; null: already started.',
    }),
    validTo: t.expose('validTo', {
      type: 'DateTime',
      nullable: true,
      description: 'End; null: open.',
    }),
    currencies: t.field({
      type: [CurrencyAmountRef],
      description: 'The sale amounts.',
      resolve: (sale) => sale.currencies,
    }),
  }),
});

function sales(row: JsonObject): SaleShape[] {
  const attributes = isJsonObject(row.attributes) ? row.attributes : {};
  const value = attributes.sales;
  if (!isJsonObject(value)) return [];
  return Object.entries(value).map(([id, sale]) => {
    const where = `product_price.attributes.sales.${id}`;
    if (!isJsonObject(sale)) throw unusable(`${where} is not an object`);
    const schedule = isJsonObject(sale.schedule) ? sale.schedule : {};
    const at = (key: string) =>
      typeof schedule[key] === 'string' ? (schedule[key] as string) : null;
    return {
      id,
      validFrom: at('valid_from'),
      validTo: at('valid_to'),
      currencies: currencyList(sale.currencies, `${where}.currencies`),
    };
  });
}

const currenciesOf = (label: string) => (row: JsonObject) =>
  currencyList(
    isJsonObject(row.attributes) ? row.attributes.currencies : undefined,
    `${label}.attributes.currencies`,
  );

export const PriceBooks = defineResource({
  name: 'PriceBook',
  singular: 'price book',
  plural: 'price books',
  label: 'pricebook',
  description: 'A price book: prices by SKU, in several currencies.',
  path: '/pcm/pricebooks',
  item: '/pcm/pricebooks/{id}',
  lookupBy: 'item',
  body: 'nested',
  timestamps: 'attributes',
  readableBy: ['client_credentials'],
  fields: {
    name: field.string('Name.'),
    description: field.string('Description.', { nullable: true }),
    externalRef: field.string('Reference in another system.', { nullable: true }),
  },
  lookup: { field: 'priceBook' },
  list: {
    field: 'priceBooks',
    description: 'The price books of the store.',
    connection: 'pricebooks',
    paging: 'offset',
    offsetLimit: 'soft',
    filters: {
      name: eqFilter('name', 'On the name.'),
      externalRef: eqFilter('external_ref', 'On it.'),
    },
  },
});

export const ProductPrices = defineResource({
  name: 'ProductPrice',
  singular: 'price',
  plural: 'prices',
  label: 'product_price',
  description: 'The price of one SKU in a price book: amounts per currency, and sales.',
  path: '/pcm/pricebooks/{priceBookId}/prices',
  item: '/pcm/pricebooks/{priceBookId}/prices/{id}',
  lookupBy: 'item',
  params: { priceBookId: ['The price book.', idKind('PriceBook')] },
  body: 'nested',
  timestamps: 'attributes',
  readableBy: ['client_credentials'],
  fields: {
    priceBookId: field.param('priceBookId', 'The price book (upstream id).'),
    sku: field.string('The SKU priced.'),
    currencies: field.carried(currenciesOf('product_price')),
    sales: field.carried(sales),
  },
  extraFields: (t) => ({
    currencies: t.field({
      type: [CurrencyAmountRef],
      description: 'The amounts, one per currency.',
      resolve: (price) => price.currencies,
    }),
    sales: t.field({
      type: [PriceSaleRef],
      description: 'Its sales (none when not on sale).',
      resolve: (price) => price.sales,
    }),
  }),
  lookup: { field: 'productPrice' },
  list: {
    connection: 'pricebook-prices',
    paging: 'offset',
    offsetLimit: 'soft',
    filters: {
      sku: { attr: 'sku', type: 'String', ops: ['eq', 'in'], description: 'On the SKU.' },
    },
  },
});

export const PriceModifiers = defineResource({
  name: 'PriceModifier',
  singular: 'price modifier',
  plural: 'price modifiers',
  label: 'price_modifier',
  description: 'A price modifier of a price book (a variation option’s price change).',
  path: '/pcm/pricebooks/{priceBookId}/modifiers',
  item: '/pcm/pricebooks/{priceBookId}/modifiers/{id}',
  lookupBy: 'item',
  params: { priceBookId: ['The price book.', idKind('PriceBook')] },
  body: 'nested',
  timestamps: 'attributes',
  readableBy: ['client_credentials'],
  fields: {
    priceBookId: field.param('priceBookId', 'The price book (upstream id).'),
    name: field.string('Name (the option modifier refers to it).'),
    modifierType: field.string('`price_increment`, `price_decrement` or `price_equals`.'),
    currencies: field.carried(currenciesOf('price_modifier')),
  },
  extraFields: (t) => ({
    currencies: t.field({
      type: [CurrencyAmountRef],
      description: 'The change, one amount per currency.',
      resolve: (modifier) => modifier.currencies,
    }),
  }),
  lookup: { field: 'priceModifier' },
  list: { connection: 'pricebook-modifiers', paging: 'offset', offsetLimit: 'soft' },
});

builder.objectFields(PriceBooks.ref, (t) => ({
  prices: ProductPrices.connectionField(t, {
    description: 'The prices of this book, in the order they were added.',
    params: (book) => ({ priceBookId: book.upstreamId }),
  }),
  modifiers: PriceModifiers.connectionField(t, {
    description: 'The price modifiers of this book.',
    params: (book) => ({ priceBookId: book.upstreamId }),
  }),
}));
