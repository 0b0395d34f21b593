/**
 * A tiny stand-in of production's shopper catalog (v2-catalog-notes §6-§7) that prices by
 * catalog rule, as production does with price segmentation: one catalog, one release, rules
 * matched on `EP-Channel`, `EP-Context-Tag`, the customer of `X-Moltin-Customer-Token` and the
 * account of `EP-Account-Management-Authentication-Token` (the rule matching the most criteria
 * wins, ties to the first), each rule with its own `pricebook_ids` (highest priority first; a
 * product none of them prices has no price). Answers carry production's price members:
 * `attributes.price` per currency, `meta.pricebook_id`, `meta.display_price` in
 * `X-Moltin-Currency`, and on sale `meta.original_price`, `meta.original_display_price`,
 * `meta.sale_id`, `meta.sale_expires` (display currency only, as production writes it).
 *
 * Serves `/catalog/products` (filter `eq`/`in` on id, slug, sku), `/catalog/products/{id}`,
 * `…/relationships/children` and `/catalog/nodes` (filter `in(id,…)`), over a real socket.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

type Money = Record<string, number>;

interface Book {
  /** sku → list price per currency. */
  prices: Record<string, Money>;
  /** sku → a sale: its amounts per currency and end. */
  sales?: Record<string, { id: string; amounts: Money; ends: string }>;
}

interface Rule {
  name: string;
  channels?: string[];
  tags?: string[];
  customers?: string[];
  accounts?: string[];
  books: { id: string; priority: number }[];
}

export const CATALOG = '11111111-1111-4111-8111-111111111111';
export const RELEASE = '22222222-2222-4222-8222-222222222222';
const ROOT = '33333333-3333-4333-8333-333333333331';
const LEAF = '33333333-3333-4333-8333-333333333332';
export const PARENT = '44444444-4444-4444-8444-444444444440';
const CHILD = (n: number) => `44444444-4444-4444-8444-44444444444${n}`;

/** Tokens the stand-in knows: customer and account-member tokens → who they are. */
export const CUSTOMER_TOKENS: Record<string, string> = {
  'vip-customer-token': 'vip',
  'plain-customer-token': 'plain',
};
export const ACCOUNT_TOKENS: Record<string, string> = { 'acme-member-token': 'acme' };

/**
 * The books: C is the catalog's list price book; A prices the VIP customer's contract, B the
 * Acme account's, M the mobile channel's. The parent TEE is priced by C only (M aside), so the
 * VIP's and Acme's parent answers are alike while their children are not.
 */
const BOOKS: Record<string, Book> = {
  C: {
    prices: {
      TEE: { USD: 999, EUR: 899 },
      'TEE-S': { USD: 999, EUR: 899 },
      'TEE-M': { USD: 1099, EUR: 999 },
      'TEE-L': { USD: 1199 },
    },
    sales: { 'TEE-M': { id: 'clearance', amounts: { USD: 899 }, ends: '2099-01-01T00:00:00Z' } },
  },
  A: { prices: { 'TEE-S': { USD: 111, EUR: 101 }, 'TEE-M': { USD: 112 } } },
  B: { prices: { 'TEE-S': { USD: 222, EUR: 202 }, 'TEE-L': { USD: 223 } } },
  M: { prices: { TEE: { USD: 555 }, 'TEE-S': { USD: 333 } } },
};

const RULES: Rule[] = [
  {
    name: 'vip',
    customers: ['vip'],
    books: [
      { id: 'A', priority: 2 },
      { id: 'C', priority: 1 },
    ],
  },
  {
    name: 'acme',
    accounts: ['acme'],
    books: [
      { id: 'B', priority: 2 },
      { id: 'C', priority: 1 },
    ],
  },
  {
    name: 'mobile',
    channels: ['mobile'],
    books: [
      { id: 'M', priority: 5 },
      { id: 'C', priority: 1 },
    ],
  },
];
const CATALOG_BOOKS = [{ id: 'C', priority: 1 }];

const PRODUCTS = [
  { id: PARENT, sku: 'TEE', name: 'Tee', parent: null as string | null },
  { id: CHILD(1), sku: 'TEE-S', name: 'Tee S', parent: PARENT },
  { id: CHILD(2), sku: 'TEE-M', name: 'Tee M', parent: PARENT },
  { id: CHILD(3), sku: 'TEE-L', name: 'Tee L', parent: PARENT },
];

interface Caller {
  channel?: string;
  tags: string[];
  customer?: string;
  account?: string;
  currency: string;
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The winning rule's books: most criteria matched, ties to the first; else the catalog's. */
function booksFor(caller: Caller): { id: string; priority: number }[] {
  let best: Rule | undefined;
  let bestScore = -1;
  for (const rule of RULES) {
    const criteria: [string[] | undefined, (v: string[]) => boolean][] = [
      [rule.channels, (v) => caller.channel !== undefined && v.includes(caller.channel)],
      [rule.tags, (v) => caller.tags.some((t) => v.includes(t))],
      [rule.customers, (v) => caller.customer !== undefined && v.includes(caller.customer)],
      [rule.accounts, (v) => caller.account !== undefined && v.includes(caller.account)],
    ];
    let score = 0;
    for (const [values, holds] of criteria) {
      if (values === undefined || values.length === 0) continue;
      if (!holds(values)) {
        score = -1;
        break;
      }
      score++;
    }
    if (score > bestScore) {
      best = rule;
      bestScore = score;
    }
  }
  return (best?.books ?? CATALOG_BOOKS).toSorted((a, b) => b.priority - a.priority);
}

const display = (amount: number, currency: string) => {
  const value = { amount, currency, formatted: `${currency} ${(amount / 100).toFixed(2)}` };
  return { with_tax: value, without_tax: value };
};

function priced(sku: string, caller: Caller) {
  for (const { id } of booksFor(caller)) {
    const book = BOOKS[id];
    const list = book?.prices[sku];
    if (book === undefined || list === undefined) continue;
    const sale = book.sales?.[sku];
    const price: Record<string, { amount: number; includes_tax: boolean }> = {};
    const original: typeof price = {};
    for (const [code, amount] of Object.entries(list)) {
      price[code] = { amount: sale?.amounts[code] ?? amount, includes_tax: false };
      original[code] = { amount, includes_tax: false };
    }
    const meta: Record<string, unknown> = { pricebook_id: id };
    const shown = price[caller.currency];
    if (shown !== undefined) meta.display_price = display(shown.amount, caller.currency);
    if (sale !== undefined) {
      meta.original_price = original;
      const was = original[caller.currency];
      if (sale.amounts[caller.currency] !== undefined && was !== undefined) {
        meta.original_display_price = display(was.amount, caller.currency);
        meta.sale_id = sale.id;
        meta.sale_expires = sale.ends;
      }
    }
    return { price, meta };
  }
  return { price: undefined, meta: {} };
}

function product(row: (typeof PRODUCTS)[number], caller: Caller) {
  const { price, meta } = priced(row.sku, caller);
  return {
    id: row.id,
    type: 'product',
    attributes: {
      name: row.name,
      sku: row.sku,
      slug: row.sku.toLowerCase(),
      commodity_type: 'physical',
      status: 'live',
      base_product: row.parent === null,
      ...(row.parent === null ? {} : { base_product_id: row.parent }),
      ...(price === undefined ? {} : { price }),
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    },
    relationships: {},
    meta: {
      catalog_id: CATALOG,
      release_id: RELEASE,
      catalog_source: 'pim',
      bread_crumbs: { [LEAF]: [ROOT, LEAF] },
      bread_crumb_nodes: [LEAF],
      ...meta,
    },
  };
}

const NODES = [
  { id: ROOT, name: 'Clothing' },
  { id: LEAF, name: 'Tees' },
].map((n) => ({
  id: n.id,
  type: 'node',
  attributes: {
    name: n.name,
    slug: n.name.toLowerCase(),
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
  },
  relationships: {},
  meta: {},
}));

/** `eq(attr,v)` / `in(attr,v1,v2)` → [attr, values]. */
function filterOf(text: string | null): [string, string[]] | undefined {
  const match = text === null ? null : /^(eq|in)\((\w+),(.*)\)$/.exec(text);
  if (match === null) return undefined;
  return [match[2] ?? '', (match[3] ?? '').split(',').map((v) => v.replace(/^"|"$/g, ''))];
}

function list(url: URL, rows: unknown[]) {
  const limit = Number(url.searchParams.get('page[limit]') ?? 25);
  const offset = Number(url.searchParams.get('page[offset]') ?? 0);
  return {
    data: rows.slice(offset, offset + limit),
    meta: { results: { total: rows.length }, page: { limit, offset, total: rows.length } },
  };
}

export interface RulePricedUpstream {
  url: string;
  /** Every path (with query) the stand-in was asked, in order. */
  calls: string[];
  close(): Promise<void>;
}

function handle(request: IncomingMessage, response: ServerResponse, calls: string[]) {
  const url = new URL(request.url ?? '/', 'http://stand-in');
  calls.push(decodeURIComponent(url.pathname + url.search));
  const send = (status: number, body: unknown) => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  };
  const customerToken = header(request, 'x-moltin-customer-token');
  const accountToken = header(request, 'ep-account-management-authentication-token');
  const customer = customerToken === undefined ? undefined : CUSTOMER_TOKENS[customerToken];
  const account = accountToken === undefined ? undefined : ACCOUNT_TOKENS[accountToken];
  if ((customerToken && !customer) || (accountToken && !account)) {
    return send(401, { errors: [{ status: 401, title: 'Unauthorized' }] });
  }
  const caller: Caller = {
    channel: header(request, 'ep-channel'),
    tags: (header(request, 'ep-context-tag') ?? '').split(',').filter((t) => t !== ''),
    customer,
    account,
    currency: (header(request, 'x-moltin-currency') ?? 'USD').toUpperCase(),
  };
  const path = url.pathname.split('/').filter((p) => p !== '');
  const filter = filterOf(url.searchParams.get('filter'));
  if (path[0] === 'catalog' && path[1] === 'products') {
    const id = path[2];
    if (id === undefined) {
      const rows = PRODUCTS.filter((p) => {
        if (filter === undefined) return true;
        const [attr, values] = filter;
        const value = attr === 'id' ? p.id : attr === 'sku' ? p.sku : p.sku.toLowerCase();
        return values.includes(value);
      });
      return send(
        200,
        list(
          url,
          rows.map((p) => product(p, caller)),
        ),
      );
    }
    const row = PRODUCTS.find((p) => p.id === id);
    if (row === undefined) return send(404, { errors: [{ status: 404, title: 'Not Found' }] });
    if (path[3] === 'relationships' && path[4] === 'children') {
      return send(
        200,
        list(
          url,
          PRODUCTS.filter((p) => p.parent === id).map((p) => product(p, caller)),
        ),
      );
    }
    return send(200, { data: product(row, caller) });
  }
  if (path[0] === 'catalog' && path[1] === 'nodes' && path[2] === undefined) {
    const rows = NODES.filter((n) => filter === undefined || filter[1].includes(n.id));
    return send(200, list(url, rows));
  }
  return send(404, { errors: [{ status: 404, title: 'Not Found', detail: url.pathname }] });
}

export async function startRulePricedUpstream(): Promise<RulePricedUpstream> {
  const calls: string[] = [];
  const server = createServer((request, response) => handle(request, response, calls));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
