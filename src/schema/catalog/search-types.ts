/**
 * The GraphQL types of `catalog { search, autocomplete }` (./search.ts resolves them): the sort
 * and facet enums, the typed filter, the connection with its facets and highlighted edges, and
 * the suggestions.
 */
import { builder } from '../builder.ts';
import { type FacetField, SEARCH_MULTI_MAX, SEARCH_PER_PAGE_MAX } from './search-params.ts';
import { Products } from './storefront.ts';

export type ProductShape = ReturnType<typeof Products.read>;

export interface HighlightShape {
  field: string;
  snippet: string;
  matchedTokens: string[];
}
export interface EdgeShape {
  cursor: string;
  node: ProductShape;
  highlights: HighlightShape[];
}
export interface FacetShape {
  field: FacetField;
  name: string;
  values: { value: string; count: number }[];
  stats: { min: number; max: number; avg: number; sum: number } | null;
}
export interface SearchShape {
  edges: EdgeShape[];
  totalCount: number;
  facets: FacetShape[];
  pageInfo: {
    hasNextPage: boolean;
    hasPreviousPage: boolean;
    startCursor: string | null;
    endCursor: string | null;
  };
}

/** Largest `first`/`last`: ten searches of 100 fit one multi-search, whatever the offset. */
export const SEARCH_MAX_FIRST = (SEARCH_MULTI_MAX - 1) * SEARCH_PER_PAGE_MAX;

export const SortKeyRef = builder.enumType('ProductSearchSortKey', {
  description: 'The order of search hits (`reverse: true` turns it round).',
  values: {
    RELEVANCE: { description: 'Best match first (the default).' },
    PRICE: { description: 'Price in the caller’s currency, lowest first.' },
    NAME: { description: 'Name, A to Z.' },
    CREATED_AT: { description: 'Oldest first.' },
    UPDATED_AT: { description: 'Least recently updated first.' },
  } as const,
});

export const FacetFieldRef = builder.enumType('ProductSearchFacetField', {
  description: 'What a facet counts hits by.',
  values: {
    PRODUCT_TYPE: { description: '`standard`, `parent`, `child`, `bundle`.' },
    TAGS: { description: 'Tags.' },
    COMMODITY_TYPE: { description: '`physical` or `digital`.' },
    PRICE: { description: 'Price in the caller’s currency (minor units), with `stats`.' },
    NODE: { description: 'The names of the nodes the product is in.' },
    CATEGORY: {
      description:
        'The category path at `level` ("Departments > Apparel" is level 1); pass a value to ' +
        '`filter.category`.',
    },
    ATTRIBUTE: { description: 'A custom attribute (`attribute: "template.field"`).' },
    IN_STOCK: {
      description:
        '`true` (can be bought now: units available, or stock not managed) or `false` (sold ' +
        'out), read live; pass a value to `filter.inStock`.',
    },
  } as const,
});

export const FacetInput = builder.inputType('ProductSearchFacetInput', {
  description: 'One facet to count over every hit.',
  fields: (t) => ({
    field: t.field({ type: FacetFieldRef, required: true, description: 'What to count by.' }),
    attribute: t.string({
      required: false,
      description: 'For ATTRIBUTE: the custom attribute, `template.field`.',
    }),
    level: t.int({ required: false, description: 'For CATEGORY: the depth, 0 to 4 (default 0).' }),
  }),
});

export const PriceRangeInput = builder.inputType('SearchPriceRange', {
  description: 'A price range in minor units of the caller’s currency, both ends included.',
  fields: (t) => ({
    min: t.int({ required: false, description: 'Lowest price (e.g. 1000 for 10.00).' }),
    max: t.int({ required: false, description: 'Highest price.' }),
  }),
});

export const AttributeFilterInput = builder.inputType('ProductSearchAttributeFilter', {
  description: 'A custom attribute equal to one of `values`.',
  fields: (t) => ({
    key: t.string({ required: true, description: 'The attribute, `template.field`.' }),
    values: t.stringList({ required: true, description: 'Any of these values.' }),
  }),
});

export const FilterInput = builder.inputType('ProductSearchFilter', {
  description: 'Which hits to keep; every given condition must hold.',
  fields: (t) => ({
    nodeId: t.id({
      required: false,
      description:
        'Products in this node or any node below it (a CatalogNode global id or upstream id). ' +
        'Costs reads of the node and its path’s names before the search.',
    }),
    category: t.string({
      required: false,
      description: 'A category path as the CATEGORY facet shows it: "Departments > Apparel".',
    }),
    price: t.field({ type: PriceRangeInput, required: false, description: 'A price range.' }),
    tags: t.stringList({ required: false, description: 'Any of these tags.' }),
    productType: t.stringList({
      required: false,
      description: 'Any of these types: standard, parent, child, bundle.',
    }),
    commodityType: t.string({ required: false, description: '`physical` or `digital`.' }),
    attributes: t.field({
      type: [AttributeFilterInput],
      required: false,
      description: 'Custom attributes (up to 10), each equal to one of its values.',
    }),
    inStock: t.boolean({
      required: false,
      description:
        'true: only products that can be bought now (units available, or stock not managed); ' +
        'false: only sold-out ones. Read live: a stock change is seen by the next search.',
    }),
  }),
});

export const HighlightRef = builder.objectRef<HighlightShape>('SearchHighlight').implement({
  description: 'Where a hit matched the query: a snippet with `<mark>` around the matched words.',
  fields: (t) => ({
    field: t.exposeString('field', { description: 'The field, e.g. `attributes.name`.' }),
    snippet: t.exposeString('snippet', {
      description: 'HTML-escaped text with `<mark>…</mark>` around each match.',
    }),
    matchedTokens: t.exposeStringList('matchedTokens', { description: 'The matched words.' }),
  }),
});

export const EdgeRef = builder.objectRef<EdgeShape>('ProductSearchEdge').implement({
  description: 'One search hit with its cursor and highlights.',
  fields: (t) => ({
    cursor: t.exposeString('cursor', { description: 'Opaque position; pass to after/before.' }),
    node: t.field({ type: Products.ref, resolve: (e) => e.node, description: 'The product.' }),
    highlights: t.field({
      type: [HighlightRef],
      resolve: (e) => e.highlights,
      description: 'Where the query matched (empty for a search without words).',
    }),
  }),
});

export const FacetValueRef = builder
  .objectRef<{ value: string; count: number }>('ProductSearchFacetValue')
  .implement({
    description: 'One value of a facet and how many hits have it.',
    fields: (t) => ({
      value: t.exposeString('value', { description: 'The value (a price in minor units).' }),
      count: t.exposeInt('count', { description: 'Hits with this value, over every page.' }),
    }),
  });

export const FacetStatsRef = builder
  .objectRef<NonNullable<FacetShape['stats']>>('ProductSearchFacetStats')
  .implement({
    description: 'A numeric facet over every hit.',
    fields: (t) => ({
      min: t.exposeFloat('min', { description: 'Lowest.' }),
      max: t.exposeFloat('max', { description: 'Highest.' }),
      avg: t.exposeFloat('avg', { description: 'Mean.' }),
      sum: t.exposeFloat('sum', { description: 'Sum.' }),
    }),
  });

export const FacetRef = builder.objectRef<FacetShape>('ProductSearchFacet').implement({
  description: 'Hits counted by one field, over every hit (not only the page), most first.',
  fields: (t) => ({
    field: t.field({ type: FacetFieldRef, resolve: (f) => f.field, description: 'As asked.' }),
    name: t.exposeString('name', { description: 'The service’s field name (`facet_by`).' }),
    values: t.field({
      type: [FacetValueRef],
      resolve: (f) => f.values,
      description: 'The values, most hits first (up to 20).',
    }),
    stats: t.field({
      type: FacetStatsRef,
      nullable: true,
      resolve: (f) => f.stats,
      description: 'For PRICE and numeric attributes; null otherwise.',
    }),
  }),
});

export const PageInfoRef = builder
  .objectRef<SearchShape['pageInfo']>('ProductSearchPageInfo')
  .implement({
    description: 'Where this page of hits sits in the result list (Relay PageInfo).',
    fields: (t) => ({
      hasNextPage: t.exposeBoolean('hasNextPage', { description: 'More hits follow.' }),
      hasPreviousPage: t.exposeBoolean('hasPreviousPage', {
        description: 'Hits precede this page.',
      }),
      startCursor: t.exposeString('startCursor', {
        nullable: true,
        description: 'Cursor of the first edge.',
      }),
      endCursor: t.exposeString('endCursor', {
        nullable: true,
        description: 'Cursor of the last edge.',
      }),
    }),
  });

export const ConnectionRef = builder.objectRef<SearchShape>('ProductSearchConnection').implement({
  description: 'A page of search hits, their total and facets (Relay connection).',
  fields: (t) => ({
    edges: t.field({ type: [EdgeRef], resolve: (s) => s.edges, description: 'The hits.' }),
    nodes: t.field({
      type: [Products.ref],
      resolve: (s) => s.edges.map((e) => e.node),
      description: 'The hits’ products, in order.',
    }),
    pageInfo: t.field({ type: PageInfoRef, resolve: (s) => s.pageInfo, description: 'Paging.' }),
    totalCount: t.exposeInt('totalCount', { description: 'Hits in all (the service’s `found`).' }),
    facets: t.field({
      type: [FacetRef],
      resolve: (s) => s.facets,
      description: 'The facets asked for, in the order asked.',
    }),
  }),
});

export interface SuggestionShape {
  text: string;
  highlighted: string;
  count: number;
}

export const SuggestionRef = builder.objectRef<SuggestionShape>('SearchSuggestion').implement({
  description: 'A completion of what the shopper is typing: a product name.',
  fields: (t) => ({
    text: t.exposeString('text', { description: 'The suggested query.' }),
    highlighted: t.exposeString('highlighted', {
      description: 'HTML-escaped, with `<mark>` around what was typed.',
    }),
    count: t.exposeInt('count', { description: 'Products with this name.' }),
  }),
});
