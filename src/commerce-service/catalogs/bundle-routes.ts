/**
 * The shopper catalog's bundle routes (catalog_view.yaml):
 *
 * - `GET …/products/{id}/relationships/component_products` (getByContextComponentProductIDs):
 *   the bundle's option product ids that are in the release, paged; an empty list for a product
 *   that is not a bundle.
 * - `POST /catalog/products/{id}/configure` (configureByContextProduct), body
 *   `{data: {selected_options: {component: {productId: quantity}}}}`: the bundle as the shopper
 *   configured it — `meta.bundle_configuration` their (judged) selection, the selected options'
 *   prices and products in `meta.component_products` and `meta.component_product_data`, and a
 *   bundle without its own price priced from the selection (bundles.ts). 422 for a product that
 *   is not a bundle; a 400 naming the path for a selection the bundle does not allow.
 */
import type { FastifyRequest } from 'fastify';
import type { Db } from '../db.ts';
import { unprocessable } from '../errors.ts';
import { buildEnvelope } from '../listing/envelope.ts';
import { type ListSpec, parseListQuery } from '../listing/parse.ts';
import { rejectUnknownKeys, requireData } from '../request-body.ts';
import {
  bundleComponents,
  componentProductIds,
  judgeSelection,
  readSelectedOptions,
  releaseRowsById,
} from './bundles.ts';
import type { PricingRelease } from './release-prices.ts';
import { presentProducts, type ReleaseProductRow } from './views.ts';

const REFERENCE_SPEC: ListSpec = {
  filters: {},
  sorts: { position: 'position' },
  defaultSort: 'position',
};

export function listComponentProducts(
  db: Db,
  request: FastifyRequest,
  release: PricingRelease,
  bundle: ReleaseProductRow,
) {
  const query = parseListQuery(request.query, REFERENCE_SPEC, request.store.settings.pageLength);
  const ids =
    bundle.product_type === 'bundle' ? componentProductIds(bundleComponents(bundle.extra)) : [];
  const present = releaseRowsById(db, release.id, ids);
  const refs = ids.filter((id) => present.has(id)).map((id) => ({ type: 'product', id }));
  const page = query.descending ? [...refs].reverse() : refs;
  return buildEnvelope(
    request,
    query,
    page.slice(query.offset, query.offset + query.limit),
    refs.length,
  );
}

export function configureBundle(
  db: Db,
  request: FastifyRequest,
  release: PricingRelease,
  bundle: ReleaseProductRow,
  now: number,
) {
  if (bundle.product_type !== 'bundle') {
    throw unprocessable(`Product ${bundle.id} is not a bundle: it has no options to configure.`);
  }
  const data = requireData(request.body);
  rejectUnknownKeys(data, ['selected_options']);
  const components = bundleComponents(bundle.extra);
  const inRelease = releaseRowsById(db, release.id, componentProductIds(components));
  const selection = judgeSelection(
    bundle.id,
    components,
    readSelectedOptions(data.selected_options, 'data.selected_options'),
    'data.selected_options',
    (id) => inRelease.has(id),
  );
  const { data: shown, included } = presentProducts(db, request, release, [bundle], now, selection);
  return { data: shown[0], ...(Object.keys(included).length > 0 ? { included } : {}) };
}
