/**
 * The catalog end to end, through the gateway only, on an empty store: a merchandiser (the
 * store's token) builds a small catalog — a hierarchy with a node under a node, a standard
 * product and a parent whose children the build makes, a price book with USD and EUR prices,
 * stock, two catalogs (web and app) and a rule sending the `app` channel to the second — and
 * publishes both; a shopper with an implicit token and `EP-Channel: app` walks the nodes, lists
 * a node's products with EUR prices and stock, opens the parent by slug with its breadcrumbs
 * and children, adds a child by SKU to a cart and checks out. Checkout re-checks stock and
 * allocates none (the notes: payment allocates); a shopper without the channel sees the web
 * catalog and its prices.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/harness.ts';
import { type Json, userError } from './fixtures.ts';

let stack: Stack;
let guest: string;
beforeAll(async () => {
  stack = await startStack();
  guest = await stack.implicitToken();
});
afterAll(() => stack?.close());

async function admin(query: string, variables?: Record<string, unknown>): Promise<Json> {
  const result = await stack.graphql(query, variables);
  expect(result.body.errors, JSON.stringify(result.body.errors)).toBeUndefined();
  return result.body.data;
}

async function shop(
  query: string,
  variables?: Record<string, unknown>,
  channel: string | null = 'app',
): Promise<Json> {
  const headers: Record<string, string> = channel === null ? {} : { 'EP-Channel': channel };
  const result = await stack.graphql(query, variables, { token: guest, headers });
  expect(result.body.errors, JSON.stringify(result.body.errors)).toBeUndefined();
  return result.body.data;
}

const made: Record<string, string> = {};
const childSkus: string[] = [];

describe('a merchandiser builds and publishes, a shopper browses and buys', () => {
  it('builds the tree, the products (a parent and its children), prices and stock', async () => {
    const h = await admin(
      'mutation { createPcmHierarchy(input: { name: "Clothes", slug: "clothes" }) { hierarchy { upstreamId } } }',
    );
    made.hierarchy = h.createPcmHierarchy.hierarchy.upstreamId;
    const node = `mutation($i: CreatePcmNodeInput!) { createPcmNode(input: $i) { node { upstreamId } } }`;
    made.top = (
      await admin(node, { i: { hierarchyId: made.hierarchy, name: 'Tops', slug: 'tops' } })
    ).createPcmNode.node.upstreamId;
    made.leaf = (
      await admin(node, {
        i: { hierarchyId: made.hierarchy, name: 'Tees', slug: 'tees', parentId: made.top },
      })
    ).createPcmNode.node.upstreamId;

    const product = `mutation($i: CreatePcmProductInput!) { createPcmProduct(input: $i) { product { upstreamId } } }`;
    const create = async (sku: string, name: string) =>
      (
        await admin(product, {
          i: { name, sku, slug: sku.toLowerCase(), commodityType: 'PHYSICAL', status: 'LIVE' },
        })
      ).createPcmProduct.product.upstreamId as string;
    made.cap = await create('CAP-1', 'Cap');
    made.tee = await create('TEE-1', 'Tee');

    const size = await admin(
      'mutation { createPcmVariation(input: { name: "Size" }) { variation { upstreamId } } }',
    );
    made.size = size.createPcmVariation.variation.upstreamId;
    // Each option appends to the SKU and the slug of the child built with it.
    for (const option of ['S', 'M']) {
      const made = await admin(
        'mutation($v: ID!, $n: String!) { createPcmVariationOption(input: { variationId: $v, name: $n }) { option { upstreamId } } }',
        { v: size.createPcmVariation.variation.upstreamId, n: option },
      );
      for (const [type, value] of [
        ['SKU_APPEND', `-${option}`],
        ['SLUG_APPEND', `-${option.toLowerCase()}`],
      ]) {
        await admin(
          'mutation($v: ID!, $o: ID!, $t: PcmOptionModifierType!, $x: String!) { addPcmOptionModifier(input: { variationId: $v, optionId: $o, type: $t, value: $x }) { option { name } } }',
          {
            v: size.createPcmVariation.variation.upstreamId,
            o: made.createPcmVariationOption.option.upstreamId,
            t: type,
            x: value,
          },
        );
      }
    }
    const parent = await admin(
      'mutation($p: ID!, $v: [ID!]!) { setPcmProductVariations(input: { productId: $p, variationIds: $v }) { product { productType } } }',
      { p: made.tee, v: [made.size] },
    );
    expect(parent.setPcmProductVariations.product).not.toBeNull();
    const built = await admin(
      'mutation($p: ID!) { buildPcmChildProducts(input: { productId: $p }) { job { status product { productType children(first: 10) { totalCount edges { node { upstreamId sku } } } } } } }',
      { p: made.tee },
    );
    expect(built.buildPcmChildProducts.job.status).toBe('success');
    expect(built.buildPcmChildProducts.job.product.productType).toBe('parent');
    const children = built.buildPcmChildProducts.job.product.children;
    expect(children.totalCount).toBe(2);
    for (const edge of children.edges) childSkus.push(edge.node.sku);
    expect(childSkus.sort()).toEqual(['TEE-1-M', 'TEE-1-S']);
    made.child = children.edges[0].node.upstreamId;

    await admin(
      'mutation($i: PcmNodeProductsInput!) { attachPcmNodeProducts(input: $i) { node { upstreamId } } }',
      { i: { hierarchyId: made.hierarchy, nodeId: made.leaf, productIds: [made.cap, made.tee] } },
    );

    const book = async (name: string) =>
      (
        await admin(
          `mutation { createPriceBook(input: { name: "${name}" }) { priceBook { upstreamId } } }`,
        )
      ).createPriceBook.priceBook.upstreamId as string;
    made.web = await book('Web');
    made.app = await book('App');
    const price = `mutation($i: CreateProductPriceInput!) { createProductPrice(input: $i) { price { sku } } }`;
    for (const sku of ['CAP-1', 'TEE-1', ...childSkus]) {
      await admin(price, {
        i: {
          priceBookId: made.web,
          sku,
          currencies: [
            { currency: 'USD', amount: 2000 },
            { currency: 'EUR', amount: 1800, includesTax: true },
          ],
        },
      });
      await admin(price, {
        i: {
          priceBookId: made.app,
          sku,
          currencies: [
            { currency: 'USD', amount: 1500 },
            { currency: 'EUR', amount: 1400, includesTax: true },
          ],
        },
      });
    }
    for (const id of [made.cap, made.child]) {
      await admin(
        'mutation($p: ID!) { setStock(input: { productId: $p, quantity: 5 }) { stockLevel { available } } }',
        { p: id },
      );
    }
  });

  it('publishes a web catalog and an app catalog with a rule for the app channel', async () => {
    const catalog = `mutation($i: CreatePcmCatalogInput!) { createPcmCatalog(input: $i) { catalog { upstreamId } } }`;
    made.webCatalog = (
      await admin(catalog, {
        i: {
          name: 'Web',
          hierarchyIds: [made.hierarchy],
          priceBooks: [{ priceBookId: made.web, priority: 1 }],
        },
      })
    ).createPcmCatalog.catalog.upstreamId;
    made.appCatalog = (
      await admin(catalog, {
        i: {
          name: 'App',
          hierarchyIds: [made.hierarchy],
          priceBooks: [{ priceBookId: made.app, priority: 1 }],
        },
      })
    ).createPcmCatalog.catalog.upstreamId;
    await admin(
      'mutation($c: ID!) { createCatalogRule(input: { name: "app", catalogId: $c, channels: ["app"] }) { rule { name } } }',
      { c: made.appCatalog },
    );
    for (const c of [made.webCatalog, made.appCatalog]) {
      const published = await admin(
        'mutation($c: ID!) { publishPcmCatalog(input: { catalogId: $c }) { release { status } } }',
        { c },
      );
      expect(published.publishPcmCatalog.release.status).toBe('PUBLISHED');
    }
  });

  it('the app shopper walks the nodes and lists a node’s products with EUR prices and stock', async () => {
    const tree = await shop(`{ catalog { hierarchies(first: 5) { edges { node { name
      children(first: 5) { edges { node { upstreamId name children(first: 5) { nodes { upstreamId name } } } } } } } } } }`);
    const clothes = tree.catalog.hierarchies.edges[0].node;
    expect(clothes.name).toBe('Clothes');
    const tops = clothes.children.edges[0].node;
    expect(tops.name).toBe('Tops');
    expect(tops.children.nodes[0]).toEqual({ upstreamId: made.leaf, name: 'Tees' });

    const listing = await shop(
      `query($n: ID!) { catalog { nodes(filter: { id: { in: [$n] } }) { edges { node { products(first: 10) {
        totalCount edges { node { sku productType price(currency: "EUR") { amount { amount formatted } includesTax } stock { available } } } } } } } } }`,
      { n: made.leaf },
    );
    const products = listing.catalog.nodes.edges[0].node.products;
    expect(products.totalCount).toBe(2);
    const cap = products.edges.map((e: Json) => e.node).find((p: Json) => p.sku === 'CAP-1');
    expect(cap).toEqual({
      sku: 'CAP-1',
      productType: 'standard',
      price: { amount: { amount: 1400, formatted: '€14.00' }, includesTax: true },
      stock: { available: 5 },
    });
  });

  it('opens the parent by slug with breadcrumbs and children, adds a child by SKU and checks out', async () => {
    const page = await shop(`{ catalog { product(slug: "tee-1") { name productType
      breadcrumbs { name } children(first: 5) { totalCount edges { node { sku parent { sku } } } } } } }`);
    expect(page.catalog.product).toMatchObject({
      name: 'Tee',
      productType: 'parent',
      breadcrumbs: [{ name: 'Tops' }, { name: 'Tees' }],
    });
    expect(page.catalog.product.children.totalCount).toBe(2);
    expect(page.catalog.product.children.edges[0].node.parent).toEqual({ sku: 'TEE-1' });

    const child = await admin('query($p: ID!) { pcmProduct(id: $p) { sku } }', { p: made.child });
    const sku = child.pcmProduct.sku;
    const cart = await shop(
      'mutation { createCart(input: { name: "App", currency: "EUR" }) { cart { upstreamId } } }',
    );
    const cartId = cart.createCart.cart.upstreamId;
    const added = await shop(
      `mutation($i: AddCartProductItemInput!) { addCartProductItem(input: $i) { cart { totals { withTax { amount } } } } }`,
      { i: { cartId, sku, quantity: 2 } },
    );
    expect(added.addCartProductItem.cart.totals.withTax.amount).toBe(2800);

    const order = await shop(
      `mutation($i: CheckoutCartInput!) { checkoutCart(input: $i) { order { upstreamId total { amount } items { sku quantity } } } }`,
      {
        i: {
          cartId,
          customer: { name: 'Ann App', email: 'ann@example.com' },
          billingAddress: {
            firstName: 'Ann',
            lastName: 'App',
            line1: '1 High Street',
            region: 'Kent',
            postcode: 'CT1 1AA',
            country: 'GB',
          },
        },
      },
    );
    expect(order.checkoutCart.order).toMatchObject({
      total: { amount: 2800 },
      items: [{ sku, quantity: 2 }],
    });

    // Checkout re-checked the stock and allocated none (the notes: payment allocates).
    const stockOf = async () =>
      (
        await admin(
          'query($p: ID!) { pcmProduct(id: $p) { stock { available allocated total } } }',
          {
            p: made.child,
          },
        )
      ).pcmProduct.stock;
    expect(await stockOf()).toEqual({ available: 5, allocated: 0, total: 5 });
    const paid = await shop(
      'mutation($o: ID!) { payOrder(input: { orderId: $o }) { payment { orderPayment amount { amount currency } } } }',
      { o: order.checkoutCart.order.upstreamId },
    );
    expect(paid.payOrder.payment).toEqual({
      orderPayment: 'paid',
      amount: { amount: 2800, currency: 'EUR' },
    });
    expect(await stockOf()).toEqual({ available: 3, allocated: 2, total: 5 });
    const again = await stack.graphql(
      'mutation($o: ID!) { payOrder(input: { orderId: $o }) { payment { orderPayment } userErrors { code field message } } }',
      { o: order.checkoutCart.order.upstreamId },
      { token: guest },
    );
    expect(userError(again.body, 'payOrder')?.code).toBe('BAD_USER_INPUT');
    expect(await stockOf()).toEqual({ available: 3, allocated: 2, total: 5 });
    const more = await stack.graphql(
      `mutation($i: AddCartProductItemInput!) { addCartProductItem(input: $i) { cart { upstreamId } userErrors { code field message } } }`,
      {
        i: {
          cartId: (
            await shop(
              'mutation { createCart(input: { name: "Big", currency: "EUR" }) { cart { upstreamId } } }',
            )
          ).createCart.cart.upstreamId,
          sku,
          quantity: 4, // 5 were in stock, 3 are left after the payment
        },
      },
      { token: guest, headers: { 'EP-Channel': 'app' } },
    );
    expect(userError(more.body, 'addCartProductItem')?.code).toBe('OUT_OF_STOCK');
  });

  it('a shopper without the channel sees the web catalog and its prices', async () => {
    const query = `{ catalog { product(sku: "CAP-1") { catalogId price(currency: "USD") { amount { amount } } } } }`;
    const web = await shop(query, undefined, null);
    const app = await shop(query);
    expect(web.catalog.product).toEqual({
      catalogId: made.webCatalog,
      price: { amount: { amount: 2000 } },
    });
    expect(app.catalog.product).toEqual({
      catalogId: made.appCatalog,
      price: { amount: { amount: 1500 } },
    });
  });
});
