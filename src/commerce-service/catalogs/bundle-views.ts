/**
 * What a bundle adds to a shopper's product (catalog_view.yaml's product-meta and
 * included-response), for a page of products in a few queries (the page's component products,
 * then their prices), run only when the page has a bundle or asks for `component_products`:
 *
 * - `relationships.component_products`: the options' product ids, with the link to list them;
 * - `meta.bundle_configuration.selected_options`: the default options (`default: true`) at their
 *   quantities, or on `POST …/configure` the shopper's selection — what the reference
 *   storefront's bundle form starts from;
 * - `meta.component_products`: each option's price (`price`, `display_price`, sale members,
 *   `pricebook_id`), the options of the selection on configure;
 * - a bundle without a price of its own is priced from its selection (bundles.ts), so its
 *   `attributes.price` and `meta.display_price` follow the selection;
 * - on configure, `meta.component_product_data`: the selected options' products;
 * - `included.component_products` (with `include=component_products`): the options' products as
 *   the shopper sees them (name, price, main image relationship), an empty list for a page with
 *   no bundle.
 *
 * An option whose product is not in the release is left out of all of these.
 */
import type { Db } from '../db.ts';
import type { PriceRecord } from '../pricebooks/resolve.ts';
import {
  bundleComponents,
  componentProductIds,
  cumulativePrice,
  defaultSelection,
  releaseRowsById,
  type Selection,
} from './bundles.ts';
import type { ReleaseProductRow } from './records.ts';
import { type PricingRelease, releasePriceRecords } from './release-prices.ts';

interface Presented {
  id: string;
  attributes: object;
  relationships: object;
  meta: object;
}

interface PriceParts {
  attributes: Record<string, unknown>;
  meta: Record<string, unknown>;
}

export interface BundleViewOptions {
  now: number;
  /** A price record rendered as a product's price members (views.ts priceParts). */
  parts: (record: PriceRecord | undefined) => PriceParts;
  /** A component's row and price rendered as a shopper's product (views.ts). */
  present: (row: ReleaseProductRow, record: PriceRecord | undefined) => Presented;
  /** The shopper's selection of the page's (one) bundle: `POST …/configure`. */
  selection?: Selection;
}

const loose = (value: object) => value as Record<string, unknown>;

/** A component's price as `meta.component_products` shows it. */
function componentMeta(parts: PriceParts): Record<string, unknown> {
  const { sales: _sales, ...meta } = parts.meta;
  return {
    ...(parts.attributes.price === undefined ? {} : { price: parts.attributes.price }),
    ...meta,
  };
}

/**
 * Decorates the bundles of `rows` (their presented objects in `data`, same order) and returns
 * the component products for `included.component_products`.
 */
export function presentBundles(
  db: Db,
  release: PricingRelease,
  rows: readonly ReleaseProductRow[],
  data: readonly Presented[],
  prices: ReadonlyMap<string, PriceRecord>,
  options: BundleViewOptions,
): Presented[] {
  const bundles = rows.flatMap((row, i) =>
    row.product_type === 'bundle'
      ? [{ row, shown: data[i], components: bundleComponents(row.extra) }]
      : [],
  );
  if (bundles.length === 0) return [];
  const ids = [...new Set(bundles.flatMap((b) => componentProductIds(b.components)))];
  const componentRows = releaseRowsById(db, release.id, ids);
  const componentPrices = releasePriceRecords(
    db,
    release,
    [...componentRows.values()].flatMap((row) => (row.sku === null ? [] : [row.sku])),
  );
  const recordOf = (row: ReleaseProductRow) =>
    row.sku === null ? undefined : componentPrices.get(row.sku);
  for (const { row, shown, components } of bundles) {
    if (shown === undefined) continue;
    const inRelease = componentProductIds(components).filter((id) => componentRows.has(id));
    const configured = options.selection;
    const selection: Selection = Object.fromEntries(
      Object.entries(configured ?? defaultSelection(components)).flatMap(([key, chosen]) => {
        const kept = Object.entries(chosen).filter(([id]) => componentRows.has(id));
        return kept.length > 0 ? [[key, Object.fromEntries(kept)]] : [];
      }),
    );
    const selected = new Set(Object.values(selection).flatMap((o) => Object.keys(o)));
    const listed =
      configured === undefined ? inRelease : inRelease.filter((id) => selected.has(id));
    const meta = loose(shown.meta);
    meta.bundle_configuration = { selected_options: selection };
    meta.component_products = Object.fromEntries(
      listed.flatMap((id) => {
        const component = componentRows.get(id);
        return component === undefined
          ? []
          : [[id, componentMeta(options.parts(recordOf(component)))]];
      }),
    );
    if (configured !== undefined) {
      meta.component_product_data = Object.fromEntries(
        listed.flatMap((id) => {
          const component = componentRows.get(id);
          return component === undefined
            ? []
            : [[id, options.present(component, recordOf(component))]];
        }),
      );
    }
    loose(shown.relationships).component_products = {
      data: inRelease.map((id) => ({ type: 'product', id })),
      links: { self: `/catalog/products/${row.id}/relationships/component_products` },
    };
    // A bundle priced by its own SKU keeps that price; any other costs what its selection does.
    if (row.sku === null || !prices.has(row.sku)) {
      const record = cumulativePrice(selection, componentRows, componentPrices, options.now);
      const parts = options.parts(record);
      Object.assign(loose(shown.attributes), parts.attributes);
      Object.assign(meta, parts.meta);
    }
  }
  const included: Presented[] = [];
  for (const id of ids) {
    const component = componentRows.get(id);
    if (component !== undefined) included.push(options.present(component, recordOf(component)));
  }
  return included;
}
