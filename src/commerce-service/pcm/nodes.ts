/**
 * Hierarchies and their nodes: rows, the attributes a write may carry, the tree rules
 * (names and slugs unique among siblings: 409; a node never under itself or its own
 * descendant: 422) and the responses, with breadcrumbs from the hierarchy down to the node.
 */
import type { Db } from '../db.ts';
import { badRequest, conflict, unprocessable } from '../errors.ts';
import {
  type JsonObject,
  optionalString,
  optionalText,
  rejectUnknownKeys,
} from '../request-body.ts';
import { readIdentifier } from '../resource-body.ts';
import {
  ATTRIBUTES,
  OWNER,
  readCustomAttributes,
  readLocales,
  readSortOrder,
  SLUG,
} from './common.ts';

export interface HierarchyRow {
  id: string;
  store_id: string;
  name: string;
  slug: string | null;
  description: string | null;
  extra: string;
  created_at: string;
  updated_at: string;
}

export interface NodeRow extends HierarchyRow {
  hierarchy_id: string;
  parent_id: string | null;
  sort_order: number | null;
}

/** Attributes hierarchies and nodes share; nodes add curated_products. */
export interface TreeInput {
  name?: string;
  slug?: string | null;
  description?: string | null;
  extra: JsonObject;
  curated?: string[];
}

/** Most curated products a node may have. */
export const MAX_CURATED = 20;

/** Reads a hierarchy's or node's attributes; on create `name` is required. */
export function readTreeAttributes(
  attributes: JsonObject,
  creating: boolean,
  currentExtra: string,
  node: boolean,
): TreeInput {
  const allowed = [
    'name',
    'slug',
    'description',
    'locales',
    'admin_attributes',
    'shopper_attributes',
  ];
  rejectUnknownKeys(attributes, node ? [...allowed, 'curated_products'] : allowed, ATTRIBUTES);
  const prefix = ATTRIBUTES;
  const input: TreeInput = { extra: JSON.parse(currentExtra) as JsonObject };
  const name = optionalText(attributes, 'name', { prefix });
  if (name !== undefined) input.name = name;
  else if (creating || attributes.name === null)
    throw badRequest(`${prefix}.name is required.`, `${prefix}.name`);
  const slug = optionalString(attributes, 'slug', { prefix, min: 1, max: 255, pattern: SLUG });
  if (slug !== undefined || attributes.slug === null) input.slug = slug ?? null;
  const description = optionalString(attributes, 'description', { prefix, max: 65_535 });
  if (description !== undefined || attributes.description === null)
    input.description = description ?? null;
  const locales = readLocales(attributes);
  if (locales === null) delete input.extra.locales;
  else if (locales !== undefined) input.extra.locales = locales;
  for (const key of ['admin_attributes', 'shopper_attributes'] as const) {
    const merged = readCustomAttributes(
      attributes,
      key,
      input.extra[key] as Record<string, string> | undefined,
    );
    if (merged !== undefined) input.extra[key] = merged;
  }
  const curated = attributes.curated_products;
  if (node && curated !== undefined) {
    const source = `${prefix}.curated_products`;
    if (curated !== null && !Array.isArray(curated))
      throw badRequest(`${source} must be a list of product ids.`, source);
    const list = (curated ?? []) as unknown[];
    if (list.length > MAX_CURATED) {
      throw badRequest(`${source} may hold at most ${MAX_CURATED} products.`, source);
    }
    input.curated = [
      ...new Set(
        list.map(
          (id, i) => readIdentifier({ type: 'product', id }, 'product', `${source}[${i}]`).id,
        ),
      ),
    ];
  }
  return input;
}

/** A node body's `meta.sort_order` (null clears it). */
export function readNodeSortOrder(meta: JsonObject): number | null | undefined {
  return readSortOrder(meta, 'data.meta.sort_order');
}

/** A node body's `relationships.parent.data` node id: undefined absent, null for the top level. */
export function readParentId(relationships: JsonObject): string | null | undefined {
  rejectUnknownKeys(relationships, ['parent', 'children', 'products'], 'data.relationships');
  const parent = relationships.parent;
  if (parent === undefined) return undefined;
  const data = (parent as JsonObject | null)?.data;
  if (data === null) return null;
  return readIdentifier(data, 'node', 'data.relationships.parent.data').id;
}

/**
 * 409 when a sibling (same hierarchy and parent) other than `exceptId` has this name or slug.
 * Names compare exactly; slugs too.
 */
export function checkSiblings(
  db: Db,
  hierarchyId: string,
  parentId: string | null,
  name: string,
  slug: string | null,
  exceptId: string | null,
  source = ATTRIBUTES,
): void {
  const clash = db
    .prepare(
      `SELECT id, name, slug FROM pcm_nodes
       WHERE hierarchy_id = ? AND parent_key = ? AND id IS NOT ? AND (name = ? OR slug = ?) LIMIT 1`,
    )
    .get(hierarchyId, parentId ?? '', exceptId, name, slug) as
    | { id: string; name: string; slug: string | null }
    | undefined;
  if (clash === undefined) return;
  const field = clash.name === name ? 'name' : 'slug';
  throw conflict(
    `A sibling node (${clash.id}) already has the ${field} "${field === 'name' ? name : slug}"; names and slugs are unique among siblings.`,
    `${source}.${field}`,
  );
}

/** 422 when `parentId` is not a node of the hierarchy, or is `nodeId` or one of its descendants. */
export function checkParent(
  db: Db,
  hierarchyId: string,
  nodeId: string | null,
  parentId: string,
  source: string,
): void {
  const parent = db.prepare('SELECT id, hierarchy_id FROM pcm_nodes WHERE id = ?').get(parentId) as
    | { id: string; hierarchy_id: string }
    | undefined;
  if (parent === undefined || parent.hierarchy_id !== hierarchyId) {
    throw unprocessable(`No node with id ${parentId} in this hierarchy.`, source);
  }
  if (nodeId === null) return;
  const ancestors = db
    .prepare(
      `WITH RECURSIVE up(id, parent_id) AS (
         SELECT id, parent_id FROM pcm_nodes WHERE id = ?
         UNION ALL SELECT n.id, n.parent_id FROM pcm_nodes n JOIN up ON n.id = up.parent_id)
       SELECT id FROM up`,
    )
    .pluck()
    .all(parentId) as string[];
  if (ancestors.includes(nodeId)) {
    throw unprocessable(
      parentId === nodeId
        ? 'A node cannot be its own parent.'
        : `Node ${parentId} is a descendant of node ${nodeId}; a node cannot move under its own descendant.`,
      source,
    );
  }
}

function crumb(row: { id: string; name: string; slug: string | null; extra: string }) {
  const locales = (JSON.parse(row.extra) as JsonObject).locales as
    | Record<string, { name?: string }>
    | undefined;
  const named = locales
    ? Object.fromEntries(
        Object.entries(locales)
          .filter(([, v]) => v.name !== undefined)
          .map(([k, v]) => [k, { name: v.name }]),
      )
    : {};
  return {
    id: row.id,
    name: row.name,
    ...(row.slug === null ? {} : { slug: row.slug }),
    ...(Object.keys(named).length > 0 ? { locales: named } : {}),
  };
}

function treeAttributes(row: HierarchyRow): JsonObject {
  const extra = JSON.parse(row.extra) as JsonObject;
  return {
    name: row.name,
    ...(row.description === null ? {} : { description: row.description }),
    ...(row.slug === null ? {} : { slug: row.slug }),
    ...extra,
  };
}

export function presentHierarchy(row: HierarchyRow) {
  return {
    id: row.id,
    type: 'hierarchy',
    attributes: treeAttributes(row),
    relationships: {
      children: { data: [], links: { related: `/hierarchies/${row.id}/children` } },
    },
    meta: {
      created_at: row.created_at,
      updated_at: row.updated_at,
      owner: OWNER,
      breadcrumbs: [crumb(row)],
    },
  };
}

/** The node as production answers it, with breadcrumbs: its hierarchy, its ancestors, itself. */
export function presentNode(db: Db, row: NodeRow) {
  const chain = db
    .prepare(
      `WITH RECURSIVE up(id, name, slug, extra, parent_id, depth) AS (
         SELECT id, name, slug, extra, parent_id, 0 FROM pcm_nodes WHERE id = ?
         UNION ALL SELECT n.id, n.name, n.slug, n.extra, n.parent_id, up.depth + 1
           FROM pcm_nodes n JOIN up ON n.id = up.parent_id)
       SELECT id, name, slug, extra FROM up ORDER BY depth DESC`,
    )
    .all(row.id) as { id: string; name: string; slug: string | null; extra: string }[];
  const hierarchy = db
    .prepare('SELECT id, name, slug, extra FROM pcm_hierarchies WHERE id = ?')
    .get(row.hierarchy_id) as { id: string; name: string; slug: string | null; extra: string };
  const curated = db
    .prepare(
      `SELECT product_id FROM pcm_node_products
       WHERE node_id = ? AND curated_position IS NOT NULL ORDER BY curated_position`,
    )
    .pluck()
    .all(row.id) as string[];
  const base = `/hierarchies/${row.hierarchy_id}/nodes/${row.id}`;
  const parentName = chain.length > 1 ? chain[chain.length - 2]?.name : hierarchy.name;
  return {
    id: row.id,
    type: 'node',
    attributes: {
      ...treeAttributes(row),
      ...(curated.length > 0 ? { curated_products: curated } : {}),
    },
    relationships: {
      children: { data: [], links: { related: `${base}/children` } },
      ...(row.parent_id === null ? {} : { parent: { data: { type: 'node', id: row.parent_id } } }),
      products: { data: [], links: { related: `${base}/products` } },
    },
    meta: {
      created_at: row.created_at,
      updated_at: row.updated_at,
      owner: OWNER,
      ...(row.sort_order === null ? {} : { sort_order: row.sort_order }),
      parent_name: parentName,
      hierarchy_id: row.hierarchy_id,
      breadcrumbs: [crumb(hierarchy), ...chain.map(crumb)],
    },
  };
}

/**
 * Sets a node's curated products (in order): each must be a product in the node (422), at
 * most MAX_CURATED. Products no longer listed lose their place.
 */
export function setCurated(db: Db, nodeId: string, productIds: string[]): void {
  const inNode = new Set(
    db
      .prepare('SELECT product_id FROM pcm_node_products WHERE node_id = ?')
      .pluck()
      .all(nodeId) as string[],
  );
  const missing = productIds.find((id) => !inNode.has(id));
  if (missing !== undefined) {
    throw unprocessable(
      `Product ${missing} is not in this node; attach it (relationships/products) before curating it.`,
      `${ATTRIBUTES}.curated_products`,
    );
  }
  db.prepare('UPDATE pcm_node_products SET curated_position = NULL WHERE node_id = ?').run(nodeId);
  const place = db.prepare(
    'UPDATE pcm_node_products SET curated_position = ? WHERE node_id = ? AND product_id = ?',
  );
  for (const [i, id] of productIds.entries()) place.run(i, nodeId, id);
}
