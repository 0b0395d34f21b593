/**
 * The calibration floor for the peers bench's pages: node:http, the upstream calls the page
 * needs through undici's dispatch, `JSON.parse` of their bodies and a hand-built answer — what
 * any gateway for that query pays before GraphQL or any feature. It recognises three documents
 * and reads nothing else of them:
 * - the 25-order page (`orders(first: N)`): one GET of the orders, `{ data: { orders: { edges } } }`
 *   with global ids;
 * - the catalog listing (`catalog { products(first: N)`): the products page and one POST
 *   /v2/inventories/multiple for their stock, prices from the product's price map;
 * - the product page (`product(slug: "…")`): the product by slug; its breadcrumb nodes and
 *   children are kept for 60 s per product, as the gateway shares them between callers
 *   (CATALOG_CACHE_SECONDS), so a warm page is one call here too.
 * Run it beside the gateways with bench/pairs.ts ('{"ENTRY":"bench/floor-gateway.ts"}') or as
 * the `floor` peer of bench/peers.ts. PORT and UPSTREAM_URL as the others.
 */
import { createServer } from 'node:http';
import { Pool } from 'undici';

const upstream = process.env.UPSTREAM_URL ?? 'http://127.0.0.1:4010';
const pool = new Pool(upstream, { connections: 64 });

function call(
  method: 'GET' | 'POST',
  path: string,
  authorization: string,
  body?: string,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const headers: Record<string, string> = { authorization, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    pool.dispatch(
      { method, path, headers, body },
      {
        onRequestStart() {},
        onResponseStart() {},
        onResponseData(_controller, chunk) {
          chunks.push(chunk);
          size += chunk.length;
        },
        onResponseEnd() {
          resolve(Buffer.concat(chunks, size).toString('utf8'));
        },
        onResponseError(_controller, error) {
          reject(error);
        },
      },
    );
  });
}

const get = (path: string, authorization: string) => call('GET', path, authorization);
const globalId = (type: string, id: string) => Buffer.from(`${type}:${id}`).toString('base64');
const formats = new Map<string, Intl.NumberFormat>();
function money(amount: number, currency: string) {
  let format = formats.get(currency);
  if (format === undefined) {
    format = new Intl.NumberFormat('en-US', { style: 'currency', currency });
    formats.set(currency, format);
  }
  return { amount, currency, formatted: format.format(amount / 100) };
}

interface Row {
  id: string;
  attributes: { name: string; sku?: string; price?: Record<string, { amount: number }> };
  meta?: { bread_crumb_nodes?: string[]; bread_crumbs?: Record<string, string[]> };
}

const priceOf = (row: Row, currency: string) => {
  const amount = row.attributes.price?.[currency]?.amount;
  return amount === undefined ? null : { amount: money(amount, currency) };
};

async function orders(first: number, authorization: string) {
  const page = JSON.parse(
    await get(
      `/v2/orders?page%5Blimit%5D=${first}&page%5Boffset%5D=0&sort=created_at`,
      authorization,
    ),
  ) as { data: { id: string; status: string }[] };
  const edges = page.data.map((order) => ({
    node: { id: globalId('Order', order.id), status: order.status },
  }));
  return { orders: { edges } };
}

async function catalog(first: number, currency: string, authorization: string) {
  const page = JSON.parse(
    await get(
      `/catalog/products?include=main_image%2Cfiles&page%5Blimit%5D=${first}&page%5Boffset%5D=0`,
      authorization,
    ),
  ) as { data: Row[] };
  const stock = JSON.parse(
    await call(
      'POST',
      '/v2/inventories/multiple',
      authorization,
      JSON.stringify({ data: page.data.map((row) => ({ type: 'stock', id: row.id })) }),
    ),
  ) as { data: { id: string; available: number }[] };
  const available = new Map(stock.data.map((row) => [row.id, row.available]));
  const edges = page.data.map((row) => ({
    node: {
      id: globalId('Product', row.id),
      name: row.attributes.name,
      sku: row.attributes.sku ?? null,
      price: priceOf(row, currency),
      stock: available.has(row.id) ? { available: available.get(row.id) } : null,
    },
  }));
  return { catalog: { products: { edges } } };
}

/** Breadcrumbs and children per product, kept 60 s as the gateway keeps them. */
const kept = new Map<string, { until: number; breadcrumbs: unknown; children: unknown }>();

async function product(slug: string, authorization: string) {
  const page = JSON.parse(
    await get(
      `/catalog/products?page%5Blimit%5D=1&page%5Boffset%5D=0&filter=in%28slug%2C${encodeURIComponent(slug)}%29`,
      authorization,
    ),
  ) as { data: Row[] };
  const row = page.data[0];
  if (row === undefined) return { catalog: { product: null } };
  let extra = kept.get(row.id);
  if (extra === undefined || extra.until < Date.now()) {
    const first = row.meta?.bread_crumb_nodes?.[0];
    const path = (first === undefined ? undefined : row.meta?.bread_crumbs?.[first]) ?? [];
    const [nodes, children] = await Promise.all([
      path.length === 0
        ? { data: [] }
        : get(
            `/catalog/nodes?page%5Blimit%5D=${path.length}&page%5Boffset%5D=0&filter=in%28id%2C${path.join('%2C')}%29`,
            authorization,
          ).then((text) => JSON.parse(text) as { data: Row[] }),
      get(
        `/catalog/products/${row.id}/relationships/children?include=main_image%2Cfiles&page%5Blimit%5D=10&page%5Boffset%5D=0`,
        authorization,
      ).then((text) => JSON.parse(text) as { data: Row[] }),
    ]);
    extra = {
      until: Date.now() + 60_000,
      breadcrumbs: nodes.data.map((node) => ({
        id: globalId('CatalogNode', node.id),
        name: node.attributes.name,
      })),
      children: {
        edges: children.data.map((child) => ({
          node: {
            id: globalId('Product', child.id),
            sku: child.attributes.sku ?? null,
            name: child.attributes.name,
          },
        })),
      },
    };
    kept.set(row.id, extra);
  }
  return {
    catalog: {
      product: {
        id: globalId('Product', row.id),
        name: row.attributes.name,
        price: priceOf(row, 'USD'),
        breadcrumbs: extra.breadcrumbs,
        children: extra.children,
      },
    },
  };
}

createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', async () => {
    try {
      const { query } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { query: string };
      const first = Number(/first: (\d+)/.exec(query)?.[1] ?? 25);
      const authorization = req.headers.authorization ?? '';
      const slug = /product\(slug: "([^"]+)"\)/.exec(query)?.[1];
      const data =
        slug !== undefined
          ? await product(slug, authorization)
          : query.includes('catalog { products(')
            ? await catalog(
                first,
                /currency: "([A-Z]{3})"/.exec(query)?.[1] ?? 'USD',
                authorization,
              )
            : await orders(first, authorization);
      const text = JSON.stringify({ data });
      res.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(text),
      });
      res.end(text);
    } catch (error) {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(error));
    }
  });
}).listen(Number(process.env.PORT ?? 4000), '127.0.0.1');

// A clean exit on SIGTERM, so a --cpu-prof of the floor (bench/pairs.ts PROF) is written.
process.on('SIGTERM', () => process.exit(0));
