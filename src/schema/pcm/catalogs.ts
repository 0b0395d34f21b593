/**
 * Catalogs (`/pcm/catalogs`: hierarchies and price books with priorities), their releases (the
 * published, read-only snapshots; the newest three are kept) and catalog rules (who sees which
 * catalog: channels, tags, customers, accounts, schedules), as described resources with offset
 * connections. `Catalog…` types are the merchandiser's; a shopper reads a release's content
 * through the storefront's types.
 */
import { isJsonObject, type JsonObject } from '../../upstream/client.ts';
import { type BuilderTypes, builder } from '../builder.ts';
import { eqInFilter } from '../connection.ts';
import { idKind } from '../kit/ids.ts';
import { defineResource, field } from '../resource.ts';
import { unusable } from '../rows.ts';

/** A list of strings at `attributes.<key>` (absent: empty); another shape is unusable. */
const stringsAt = (label: string, key: string) => (row: JsonObject) => {
  const attributes = isJsonObject(row.attributes) ? row.attributes : {};
  const value = attributes[key];
  if (value === undefined || value === null) return [] as string[];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    throw unusable(`${label}.attributes.${key} is not a list of strings`);
  }
  return value as string[];
};

/** Exposes carried string lists as `[String!]!` fields. */
function stringLists<S extends object>(
  t: PothosSchemaTypes.ObjectFieldBuilder<BuilderTypes, S>,
  fields: Record<string, string>,
) {
  return Object.fromEntries(
    Object.entries(fields).map(([name, description]) => [
      name,
      t.stringList({
        description,
        resolve: (source) => (source as Record<string, unknown>)[name] as string[],
      }),
    ]),
  );
}

interface PriceBookPriorityShape {
  priceBookId: string;
  priority: number;
}

const PriceBookPriorityRef = builder
  .objectRef<PriceBookPriorityShape>('CatalogPriceBook')
  .implement({
    description: 'A price book of a catalog; the highest priority prices a SKU first.',
    fields: (t) => ({
      priceBookId: t.exposeID('priceBookId', { description: 'The price book (upstream id).' }),
      priority: t.exposeInt('priority', { description: 'Higher wins.' }),
    }),
  });

function priceBooks(row: JsonObject): PriceBookPriorityShape[] {
  const attributes = isJsonObject(row.attributes) ? row.attributes : {};
  const list = attributes.pricebook_ids;
  if (list === undefined || list === null) {
    return typeof attributes.pricebook_id === 'string'
      ? [{ priceBookId: attributes.pricebook_id, priority: 0 }]
      : [];
  }
  if (!Array.isArray(list)) throw unusable('catalog.attributes.pricebook_ids is not a list');
  return list.map((entry, i) => {
    if (!isJsonObject(entry) || typeof entry.id !== 'string') {
      throw unusable(`catalog.attributes.pricebook_ids[${i}] has no id`);
    }
    const priority = entry.priority;
    return {
      priceBookId: entry.id,
      priority: typeof priority === 'number' && Number.isInteger(priority) ? priority : 0,
    };
  });
}

export const Catalogs = defineResource({
  name: 'Catalog',
  singular: 'catalog',
  plural: 'catalogs',
  description:
    'A catalog as the merchandiser defines it: which hierarchies, which price books. Shoppers ' +
    'see its published releases.',
  path: '/pcm/catalogs',
  item: '/pcm/catalogs/{id}',
  lookupBy: 'item',
  body: 'nested',
  timestamps: 'attributes',
  readableBy: ['client_credentials'],
  fields: {
    name: field.string('Name.'),
    description: field.string('Description.', { nullable: true }),
    hierarchyIds: field.carried(stringsAt('catalog', 'hierarchy_ids')),
    priceBooks: field.carried(priceBooks),
  },
  extraFields: (t) => ({
    ...stringLists(t, { hierarchyIds: 'Its hierarchies (upstream ids), in order.' }),
    priceBooks: t.field({
      type: [PriceBookPriorityRef],
      description: 'Its price books with their priorities.',
      resolve: (catalog) => catalog.priceBooks,
    }),
  }),
  lookup: { field: 'pcmCatalog' },
  list: {
    field: 'pcmCatalogs',
    description: 'The catalogs of the store (the merchandiser’s definitions).',
    connection: 'catalogs',
    paging: 'offset',
    offsetLimit: 'soft',
    filters: { name: eqInFilter('name', 'On the name.') },
  },
});

export const CatalogReleases = defineResource({
  name: 'CatalogRelease',
  singular: 'release',
  plural: 'releases',
  label: 'catalog_release',
  description:
    'A published release of a catalog: a read-only snapshot of its live products, hierarchies ' +
    'and prices. The newest three are kept.',
  path: '/pcm/catalogs/{catalogId}/releases',
  item: '/pcm/catalogs/{catalogId}/releases/{id}',
  lookupBy: 'item',
  params: { catalogId: ['The catalog.', idKind('Catalog')] },
  body: 'nested',
  timestamps: 'meta',
  readableBy: ['client_credentials'],
  fields: {
    catalogId: field.param('catalogId', 'The catalog released (upstream id).'),
    name: field.string('The catalog’s name when published.', { nullable: true }),
    status: field.string('`PENDING`, `IN_PROGRESS`, `PUBLISHED` or `FAILED`.', {
      from: 'meta.release_status',
    }),
    publishedAt: field.dateTime('When it was published; null until it is.', {
      from: 'attributes.published_at',
      nullable: true,
    }),
    totalProducts: field.int('Products in the release.', {
      from: 'meta.total_products',
      nullable: true,
    }),
    totalNodes: field.int('Nodes in the release.', { from: 'meta.total_nodes', nullable: true }),
  },
  lookup: { field: 'catalogRelease' },
  list: { connection: 'catalog-releases', paging: 'offset', offsetLimit: 'soft' },
});

export const CatalogRules = defineResource({
  name: 'CatalogRule',
  singular: 'catalog rule',
  plural: 'catalog rules',
  label: 'catalog_rule',
  description:
    'Who sees which catalog: a shopper whose channel (EP-Channel), tag (EP-Context-Tag), ' +
    'customer or account matches, at the scheduled times. No rule: the default catalog.',
  path: '/pcm/catalogs/rules',
  body: 'nested',
  timestamps: 'attributes',
  readableBy: ['client_credentials'],
  fields: {
    name: field.string('Name (no spaces).'),
    catalogId: field.id('The catalog it gives (upstream id).'),
    description: field.string('Description.', { nullable: true }),
    channels: field.carried(stringsAt('catalog_rule', 'channels')),
    tags: field.carried(stringsAt('catalog_rule', 'tags')),
    customerIds: field.carried(stringsAt('catalog_rule', 'customer_ids')),
    accountIds: field.carried(stringsAt('catalog_rule', 'account_ids')),
  },
  extraFields: (t) =>
    stringLists(t, {
      channels: 'The EP-Channel values it matches.',
      tags: 'The EP-Context-Tag values it matches.',
      customerIds: 'The customers it matches (upstream ids).',
      accountIds: 'The accounts it matches (upstream ids).',
    }),
  lookup: { field: 'catalogRule' },
  list: {
    field: 'catalogRules',
    description: 'The catalog rules of the store.',
    connection: 'catalog-rules',
    paging: 'offset',
    offsetLimit: 'soft',
    filters: {
      id: { attr: 'id', type: 'ID', ops: ['eq', 'in'], description: 'On the upstream id.' },
      catalogId: {
        attr: 'catalog_id',
        type: 'ID',
        ops: ['eq', 'in'],
        description: 'On the catalog.',
      },
      name: eqInFilter('name', 'On the name.'),
    },
  },
});

builder.objectFields(Catalogs.ref, (t) => ({
  releases: CatalogReleases.connectionField(t, {
    description: 'Its releases, oldest first (the newest three are kept).',
    params: (catalog) => ({ catalogId: catalog.upstreamId }),
  }),
}));
