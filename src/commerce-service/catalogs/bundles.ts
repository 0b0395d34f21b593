/**
 * Bundles in the shopper catalog (catalog_view.yaml; PXM `components` on products): a bundle's
 * components and their options (product ids with a quantity, optional min/max, a default), the
 * shopper's selection of them (`bundle_configuration.selected_options`:
 * `{component: {productId: quantity}}`), how a selection is judged, and how a bundle is priced.
 *
 * Judging (the configure route and a cart_item with bundle_configuration): every component
 * named is the bundle's, every product one of that component's options and in the catalog's
 * release, each quantity within the option's min/max (exactly its `quantity` when it has
 * neither), and the number of options chosen in each component within the component's
 * min/max. A 400 names the path of the first offence.
 *
 * Pricing, as production documents its two kinds of bundle: a bundle whose SKU has a price in
 * the catalog's price books is priced as any product (a fixed price, whatever is selected);
 * a bundle without one (production's "SKU-less" bundle) costs the sum of its selected options'
 * list prices times their quantities ("without sale pricing", production's docs say), in each
 * currency every selected option has a price in. Only products of the release can be options:
 * production publishes only products in the catalog's hierarchies, components included.
 */
import { cachedStatement, type Db } from '../db.ts';
import { badRequest } from '../errors.ts';
import { type PriceRecord, priceInCurrency } from '../pricebooks/resolve.ts';
import type { ReleaseProductRow } from './records.ts';

export interface ComponentOption {
  id: string;
  quantity: number;
  min?: number;
  max?: number;
  default: boolean;
}

export interface Component {
  key: string;
  min?: number;
  max?: number;
  options: ComponentOption[];
}

/** `{component: {productId: quantity}}`. */
export type Selection = Record<string, Record<string, number>>;

const count = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;

/**
 * The components of a product's stored `extra` (PXM keeps them as given): components with
 * their options, in the order PXM stored them; an option without a usable id is skipped.
 */
export function bundleComponents(extra: string): Component[] {
  const components = (JSON.parse(extra) as { components?: unknown }).components;
  if (typeof components !== 'object' || components === null) return [];
  return Object.entries(components as Record<string, unknown>).map(([key, raw]) => {
    const value = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
    const options = Array.isArray(value.options) ? (value.options as unknown[]) : [];
    const min = count(value.min);
    const max = count(value.max);
    return {
      key,
      ...(min === undefined ? {} : { min }),
      ...(max === undefined ? {} : { max }),
      options: options.flatMap((o): ComponentOption[] => {
        const option = (typeof o === 'object' && o !== null ? o : {}) as Record<string, unknown>;
        if (typeof option.id !== 'string') return [];
        const optionMin = count(option.min);
        const optionMax = count(option.max);
        return [
          {
            id: option.id.toLowerCase(),
            quantity: count(option.quantity) || 1,
            ...(optionMin === undefined ? {} : { min: optionMin }),
            ...(optionMax === undefined ? {} : { max: optionMax }),
            default: option.default === true,
          },
        ];
      }),
    };
  });
}

/** Every option's product id, once each, in component then option order. */
export function componentProductIds(components: readonly Component[]): string[] {
  return [...new Set(components.flatMap((c) => c.options.map((o) => o.id)))];
}

/** The bundle as it comes: each component's default options at their quantities. */
export function defaultSelection(components: readonly Component[]): Selection {
  // fromEntries: a key such as "__proto__" stays an own member, never a prototype.
  return Object.fromEntries(
    components.flatMap((component) => {
      const chosen = component.options.filter((o) => o.default);
      return chosen.length === 0
        ? []
        : [[component.key, Object.fromEntries(chosen.map((o) => [o.id, o.quantity]))]];
    }),
  );
}

/**
 * `selected_options` as sent: an object of components, each an object of product ids to whole
 * quantities. Only the shape is judged here; `judgeSelection` judges it against a bundle.
 */
export function readSelectedOptions(value: unknown, source: string): Selection {
  const shape = '{"<component>": {"<product id>": <quantity>}}';
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw badRequest(`${source} must be an object ${shape}.`, source);
  }
  return Object.fromEntries(
    Object.entries(value).map(([key, options]) => {
      const at = `${source}.${key}`;
      if (typeof options !== 'object' || options === null || Array.isArray(options)) {
        throw badRequest(`${at} must be an object of product ids to quantities.`, at);
      }
      const chosen = Object.entries(options).map(([id, quantity]) => {
        if (typeof quantity !== 'number' || !Number.isSafeInteger(quantity) || quantity < 1) {
          throw badRequest(`${at}.${id} must be a whole quantity of at least 1.`, `${at}.${id}`);
        }
        return [id.toLowerCase(), quantity] as const;
      });
      return [key, Object.fromEntries(chosen)];
    }),
  );
}

const range = (min: number | undefined, max: number | undefined) =>
  min !== undefined && max !== undefined
    ? `between ${min} and ${max}`
    : min !== undefined
      ? `at least ${min}`
      : `at most ${max}`;

/**
 * `selection` judged against the bundle's `components` (400s naming `source`'s path), in the
 * bundle's order: components as the bundle lists them, options as their component does, so two
 * equal selections have equal JSON. `inRelease` says which products the catalog has.
 */
export function judgeSelection(
  bundleId: string,
  components: readonly Component[],
  selection: Selection,
  source: string,
  inRelease: (productId: string) => boolean,
): Selection {
  const byKey = new Map(components.map((c) => [c.key, c]));
  for (const [key, options] of Object.entries(selection)) {
    const component = byKey.get(key);
    const at = `${source}.${key}`;
    if (component === undefined) {
      const keys = components.map((c) => c.key).join(', ');
      throw badRequest(
        `${at}: "${key}" is not a component of bundle ${bundleId} (its components: ${keys}).`,
        at,
      );
    }
    for (const [id, quantity] of Object.entries(options)) {
      const option = component.options.find((o) => o.id === id);
      if (option === undefined) {
        throw badRequest(
          `${at}.${id}: product ${id} is not an option of component "${key}" of bundle ${bundleId}.`,
          `${at}.${id}`,
        );
      }
      if (!inRelease(id)) {
        throw badRequest(
          `${at}.${id}: product ${id} is not in the shopper's catalog, so it cannot be chosen.`,
          `${at}.${id}`,
        );
      }
      const bounded = option.min !== undefined || option.max !== undefined;
      if (
        bounded
          ? quantity < (option.min ?? 1) || quantity > (option.max ?? Number.MAX_SAFE_INTEGER)
          : quantity !== option.quantity
      ) {
        const allowed = bounded ? range(option.min, option.max) : `exactly ${option.quantity}`;
        throw badRequest(
          `${at}.${id}: the quantity of this option must be ${allowed}, got ${quantity}.`,
          `${at}.${id}`,
        );
      }
    }
  }
  const canonical: [string, Record<string, number>][] = [];
  for (const component of components) {
    const chosen = Object.hasOwn(selection, component.key) ? (selection[component.key] ?? {}) : {};
    const picked = component.options.filter((o) => Object.hasOwn(chosen, o.id));
    const n = picked.length;
    if ((component.min !== undefined && n < component.min) || (component.max ?? n) < n) {
      const at = `${source}.${component.key}`;
      throw badRequest(
        `${at}: component "${component.key}" takes ${range(component.min, component.max)} ` +
          `options, got ${n}.`,
        at,
      );
    }
    if (n > 0) {
      canonical.push([
        component.key,
        Object.fromEntries(picked.map((o) => [o.id, chosen[o.id] ?? 0])),
      ]);
    }
  }
  if (canonical.length === 0) {
    throw badRequest(`${source} selects no product: choose at least one option.`, source);
  }
  return Object.fromEntries(canonical);
}

/** The release's rows of `ids`, in one query. */
export function releaseRowsById(
  db: Db,
  releaseId: string,
  ids: readonly string[],
): Map<string, ReleaseProductRow> {
  if (ids.length === 0) return new Map();
  const rows = cachedStatement(
    db,
    `SELECT * FROM release_products WHERE release_id = ? AND id IN (SELECT value FROM json_each(?))`,
  ).all(releaseId, JSON.stringify([...new Set(ids)])) as ReleaseProductRow[];
  return new Map(rows.map((row) => [row.id, row]));
}

/**
 * A SKU-less bundle's price for `selection`: per currency, the sum of each option's list price
 * times its quantity, in the currencies every chosen option is priced in (a price record with
 * no sales, for the renderer of any price). Undefined when no currency prices them all.
 */
export function cumulativePrice(
  selection: Selection,
  rows: ReadonlyMap<string, ReleaseProductRow>,
  prices: ReadonlyMap<string, PriceRecord>,
  now: number,
): PriceRecord | undefined {
  let sums: Map<string, { amount: number; includes_tax: boolean }> | undefined;
  let pricebookId = '';
  for (const options of Object.values(selection)) {
    for (const [id, quantity] of Object.entries(options)) {
      const sku = rows.get(id)?.sku;
      const record = sku == null ? undefined : prices.get(sku);
      if (record === undefined) return undefined;
      pricebookId ||= record.pricebook_id;
      const next = new Map<string, { amount: number; includes_tax: boolean }>();
      for (const code of Object.keys(record.currencies)) {
        const price = priceInCurrency(record, code, now);
        if (price === undefined) continue;
        const before = sums === undefined ? { amount: 0, includes_tax: true } : sums.get(code);
        if (before === undefined) continue;
        next.set(code, {
          amount: before.amount + price.original_amount * quantity,
          includes_tax: before.includes_tax && price.includes_tax,
        });
      }
      sums = next;
    }
  }
  if (sums === undefined || sums.size === 0) return undefined;
  return {
    id: 'cumulative',
    pricebook_id: pricebookId,
    sku: '',
    currencies: Object.fromEntries(sums),
    sales: null,
  };
}
