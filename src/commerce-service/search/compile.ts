/**
 * A parsed filter, facet list and sort, resolved against one release's index: field names
 * become columns (a name the index does not have is a 400 naming the parameter), filter values
 * become sets of matching dictionary entries or numbers, and the whole filter a predicate over
 * doc numbers. Strings compare without case; `:` (not `:=`) matches when the value's words all
 * appear in the field's value.
 */
import { ApiError } from '../errors.ts';
import { currencyDecimals } from '../money.ts';
import { type FieldRef, resolveField } from './fields.ts';
import { type FilterNode, type FilterValue, invalidFilter } from './filter.ts';
import { amountsIn, type ReleaseIndex, type StringColumn } from './release-index.ts';
import { STOCK_AVAILABLE, STOCK_IN_STOCK, type StockColumns } from './stock-column.ts';

export type Predicate = (doc: number) => boolean;

/** What a query needs to know of the caller to read prices. */
export interface QueryContext {
  /** The request's display currency (X-Moltin-Currency, default USD). */
  currency: string;
  now: number;
  /** The store's stock now, read only when a request names a stock field. */
  stock: () => StockColumns;
}

/** A numeric view of a field: its value per doc (NaN when absent) and how to show one. */
export interface NumericColumn {
  values: Float64Array;
  /** A filter literal in the column's unit. */
  read: (literal: string) => number | undefined;
  show: (value: number) => string;
}

const words = (text: string) =>
  text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== '');

export function unknownField(source: string, name: string, title?: string): ApiError {
  return new ApiError(
    400,
    `${source}: the index has no field "${name.slice(0, 200)}" (fields: attributes.name, attributes.sku, attributes.slug, attributes.tags, meta.search.nodes.name, meta.search.categories.lvl0…lvl4, price.<CUR>.float_price, created_at, meta.stock.in_stock, meta.stock.available, attributes.extensions.products(<template>).<field>, …).`,
    { source, ...(title ? { title } : {}) },
  );
}

/** The field `name` refers to in the index; 400 naming `source` when there is none. */
export function fieldOf(
  index: ReleaseIndex,
  name: string,
  source: string,
  title?: string,
): FieldRef {
  const ref = resolveField(name, index.known);
  if (ref === undefined) throw unknownField(source, name, title);
  return ref;
}

/** The values of a string field: the release's column, or the live stock one. */
export function stringColumn(
  index: ReleaseIndex,
  name: string,
  context: QueryContext,
): StringColumn {
  if (name === STOCK_IN_STOCK) return context.stock().inStock;
  return index.strings.get(name) as StringColumn;
}

/** The numbers of a numeric field (a price, a date, a numeric custom field). */
export function numericColumn(
  index: ReleaseIndex,
  ref: FieldRef,
  context: QueryContext,
): NumericColumn | undefined {
  const number = (literal: string) => {
    const n = Number(literal);
    return literal.trim() !== '' && Number.isFinite(n) ? n : undefined;
  };
  if (ref.kind === 'number') {
    const values =
      ref.name === STOCK_AVAILABLE
        ? context.stock().available
        : (index.numbers.get(ref.name) as Float64Array);
    return { values, read: number, show: (v) => String(v) };
  }
  if (ref.kind === 'date') {
    // Seconds since the epoch (as production's int64 dates), or an ISO 8601 date-time.
    const values = ref.name === 'created_at' ? index.created : index.updated;
    const read = (literal: string) => {
      const n = number(literal);
      if (n !== undefined) return n * 1000;
      const parsed = Date.parse(literal);
      return Number.isNaN(parsed) ? undefined : parsed;
    };
    return { values, read, show: (v) => String(Math.floor(v / 1000)) };
  }
  if (ref.kind === 'price') {
    const currency = ref.currency ?? context.currency;
    const values = amountsIn(index, currency, context.now);
    if (ref.unit === 'amount') return { values, read: number, show: (v) => String(v) };
    const scale = 10 ** currencyDecimals(currency);
    return {
      values,
      read: (literal) => {
        const n = number(literal);
        return n === undefined ? undefined : n * scale;
      },
      show: (v) => String(v / scale),
    };
  }
  return undefined;
}

function stringMatcher(
  column: StringColumn,
  values: FilterValue[],
  exact: boolean,
  source: string,
) {
  const hit = new Uint8Array(column.values.length);
  const wanted = values.map((v) => {
    if (v.kind === 'range') {
      throw invalidFilter(`a range (${v.from}..${v.to}) needs a numeric field.`, source);
    }
    return exact ? v.text.toLowerCase() : words(v.text);
  });
  column.values.forEach((value, ref) => {
    const folded = value.toLowerCase();
    const have = exact ? [] : words(value);
    for (const want of wanted) {
      if (typeof want === 'string' ? folded === want : want.every((w) => have.includes(w))) {
        hit[ref] = 1;
        return;
      }
    }
  });
  return (doc: number) => {
    for (let j = column.offsets[doc] as number; j < (column.offsets[doc + 1] as number); j++) {
      if (hit[column.refs[j] as number] === 1) return true;
    }
    return false;
  };
}

function compileNode(
  node: FilterNode,
  index: ReleaseIndex,
  context: QueryContext,
  source: string,
): Predicate {
  if (node.kind === 'match' || node.kind === 'compare') {
    return compileClause(node, index, context, source);
  }
  const items = node.items.map((item) => compileNode(item, index, context, source));
  return node.kind === 'and'
    ? (doc) => items.every((p) => p(doc))
    : (doc) => items.some((p) => p(doc));
}

type Clause = Exclude<FilterNode, { kind: 'and' | 'or' }>;

function compileClause(
  node: Clause,
  index: ReleaseIndex,
  context: QueryContext,
  source: string,
): Predicate {
  const ref = fieldOf(index, node.field, source, 'Invalid Filter');
  if (ref.kind === 'relevance') {
    throw invalidFilter(`"${node.field}" cannot be filtered on.`, source);
  }
  if (ref.kind === 'id' || ref.kind === 'string') {
    if (node.kind === 'compare') {
      throw invalidFilter(`"${node.field}" is text: it takes := or :, not ${node.op}.`, source);
    }
    let matches: Predicate;
    if (ref.kind === 'id') {
      const docs = new Set<number>();
      for (const v of node.values) {
        if (v.kind === 'range') throw invalidFilter('an id is not a number range.', source);
        const doc = index.byId.get(v.text.toLowerCase());
        if (doc !== undefined) docs.add(doc);
      }
      matches = (doc) => docs.has(doc);
    } else {
      matches = stringMatcher(
        stringColumn(index, ref.name, context),
        node.values,
        node.exact,
        source,
      );
    }
    return node.negate ? (doc) => !matches(doc) : matches;
  }
  const column = numericColumn(index, ref, context) as NumericColumn;
  const literal = (text: string) => {
    const n = column.read(text);
    if (n === undefined) {
      throw invalidFilter(`"${node.field}" is a number; "${text.slice(0, 100)}" is not.`, source);
    }
    return n;
  };
  const values = column.values;
  if (node.kind === 'compare') {
    const bound = literal(node.value);
    switch (node.op) {
      case '>':
        return (doc) => (values[doc] as number) > bound;
      case '>=':
        return (doc) => (values[doc] as number) >= bound;
      case '<':
        return (doc) => (values[doc] as number) < bound;
      default:
        return (doc) => (values[doc] as number) <= bound;
    }
  }
  const ranges = node.values.map((v) =>
    v.kind === 'range' ? [literal(v.from), literal(v.to)] : [literal(v.text), literal(v.text)],
  ) as [number, number][];
  // Prices in float_price are scaled to minor units: compare with a tolerance of rounding.
  const within = (value: number) =>
    ranges.some(([from, to]) => value >= from - 1e-9 && value <= to + 1e-9);
  return node.negate
    ? (doc) => !within(values[doc] as number)
    : (doc) => within(values[doc] as number);
}

/** The filter as a predicate over docs; 400 naming `source` for a field or value it cannot use. */
export function compileFilter(
  node: FilterNode,
  index: ReleaseIndex,
  context: QueryContext,
  source: string,
): Predicate {
  return compileNode(node, index, context, source);
}
