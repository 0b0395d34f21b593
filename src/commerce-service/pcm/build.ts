/**
 * Building a parent product's children (`POST /pcm/products/{id}/build`): one child for every
 * combination of its variations' options that its build rules include, each child's fields
 * those of the parent changed by its options' modifiers, in variation order.
 *
 * A rebuild keeps the id of a child whose combination still exists, deletes children whose
 * combination is gone (a variation added or removed changes every combination, so every
 * child is new) and never recreates a child that was detached by a direct update.
 *
 * Everything that can fail is judged before the first write (rules, SKU uniqueness, slugs),
 * and the writes run in one transaction: a failed build writes no child.
 */
import { cachedStatement, type Db } from '../db.ts';
import { newId } from '../ids.ts';
import type { JsonObject } from '../request-body.ts';
import { SLUG } from './common.ts';
import { type ProductExtra, type ProductRow, productVariationIds } from './products.ts';
import { applyModifier, type ChildFields, type OptionRow } from './variations.ts';

/** Most children one build makes (production documents no figure). */
export const MAX_CHILDREN = 10_000;

/** A build that cannot complete: its message is the job's error. */
export class BuildError extends Error {
  override name = 'BuildError';
}

export interface BuildResult {
  created: number;
  updated: number;
  deleted: number;
}

interface Variation {
  id: string;
  name: string;
  options: OptionRow[];
}

function loadVariations(db: Db, parent: ProductRow): Variation[] {
  return productVariationIds(db, parent.id).map((id) => {
    const name = db
      .prepare('SELECT name FROM pcm_variations WHERE id = ?')
      .pluck()
      .get(id) as string;
    const options = db
      .prepare(
        'SELECT * FROM pcm_variation_options WHERE variation_id = ? ORDER BY sort_order DESC, created_at, id',
      )
      .all(id) as unknown as OptionRow[];
    if (options.length === 0) throw new BuildError(`Variation "${name}" (${id}) has no options.`);
    return { id, name, options };
  });
}

function combinations(variations: Variation[]): OptionRow[][] {
  const total = variations.reduce((n, v) => n * v.options.length, 1);
  if (total > MAX_CHILDREN) {
    throw new BuildError(
      `The variations make ${total} combinations; at most ${MAX_CHILDREN} children can be built.`,
    );
  }
  let combos: OptionRow[][] = [[]];
  for (const variation of variations) {
    combos = combos.flatMap((combo) => variation.options.map((option) => [...combo, option]));
  }
  return combos;
}

/**
 * The build rules' verdict for each combination: the most specific matching rule (the one with
 * the most option ids) decides; a tie between an include and an exclude is ambiguous; no match
 * leaves the default.
 */
function ruleFilter(
  rules: JsonObject | undefined,
  variations: Variation[],
): (combo: OptionRow[]) => boolean {
  if (rules === undefined) return () => true;
  const variationOf = new Map<string, string>();
  for (const v of variations) for (const o of v.options) variationOf.set(o.id, v.id);
  const read = (key: 'include' | 'exclude') =>
    ((rules[key] ?? []) as string[][]).map((combo) => {
      const seen = new Set<string>();
      for (const id of combo) {
        const variation = variationOf.get(id);
        if (variation === undefined) {
          throw new BuildError(
            `build_rules.${key} names option ${id}, which is not an option of this product's variations.`,
          );
        }
        if (seen.has(variation)) {
          throw new BuildError(
            `build_rules.${key}: the option ids of one rule must come from different variations.`,
          );
        }
        seen.add(variation);
      }
      return combo;
    });
  const include = read('include');
  const exclude = read('exclude');
  const best = (list: string[][], ids: Set<string>) =>
    Math.max(
      -1,
      ...list.filter((rule) => rule.every((id) => ids.has(id))).map((rule) => rule.length),
    );
  return (combo) => {
    const ids = new Set(combo.map((o) => o.id));
    const inc = best(include, ids);
    const exc = best(exclude, ids);
    if (inc < 0 && exc < 0) return rules.default !== 'exclude';
    if (inc === exc) {
      throw new BuildError(
        'Could not determine whether to include or exclude a child product due to ambiguous rules.',
      );
    }
    return inc > exc;
  };
}

function modifiersByOption(
  db: Db,
  variations: Variation[],
): Map<string, { type: string; body: JsonObject }[]> {
  const ids = variations.flatMap((v) => v.options.map((o) => o.id));
  const rows = db
    .prepare(
      `SELECT option_id, modifier_type, body FROM pcm_option_modifiers
       WHERE option_id IN (SELECT value FROM json_each(?)) ORDER BY created_at, id`,
    )
    .all(JSON.stringify(ids)) as { option_id: string; modifier_type: string; body: string }[];
  const map = new Map<string, { type: string; body: JsonObject }[]>();
  for (const row of rows) {
    const list = map.get(row.option_id) ?? [];
    list.push({ type: row.modifier_type, body: JSON.parse(row.body) as JsonObject });
    map.set(row.option_id, list);
  }
  return map;
}

interface PlannedChild {
  key: string;
  fields: ChildFields;
  childVariations: unknown[];
}

function planChild(
  parent: ProductRow,
  variations: Variation[],
  combo: OptionRow[],
  modifiers: ReturnType<typeof modifiersByOption>,
): PlannedChild {
  const fields: ChildFields = {
    name: parent.name,
    description: parent.description,
    sku: parent.sku,
    slug: parent.slug,
    upc_ean: parent.upc_ean,
    mpn: parent.mpn,
    external_ref: null,
    commodity_type: parent.commodity_type,
    status: parent.status,
    touched: new Set(),
    priceModifiers: [],
  };
  for (const option of combo) {
    for (const modifier of modifiers.get(option.id) ?? [])
      applyModifier(fields, modifier.type, modifier.body);
  }
  // A parent's SKU is unique: a child has one only when its options' modifiers made it.
  if (!fields.touched.has('sku')) fields.sku = null;
  if (!fields.touched.has('slug')) fields.slug = null;
  if (fields.slug !== null && !SLUG.test(fields.slug)) {
    throw new BuildError(
      `The modifiers make the slug "${fields.slug}", which is not a valid slug.`,
    );
  }
  if (fields.sku === '' || fields.name === '') {
    throw new BuildError('The modifiers make an empty SKU or name.');
  }
  return {
    key: combo
      .map((o) => o.id)
      .sort()
      .join(','),
    fields,
    childVariations: combo.map((option, i) => ({
      id: variations[i]?.id,
      name: variations[i]?.name,
      options: null,
      option: { id: option.id, name: option.name, description: option.description ?? '' },
    })),
  };
}

/** Builds (or rebuilds) the children of `parent`; throws BuildError, writing nothing, on failure. */
export function buildChildren(db: Db, parent: ProductRow, now: () => string): BuildResult {
  return db.transaction(() => {
    const variations = loadVariations(db, parent);
    const extra = JSON.parse(parent.extra) as ProductExtra;
    const include = ruleFilter(extra.build_rules as JsonObject | undefined, variations);
    const modifiers = modifiersByOption(db, variations);
    const detached = new Set(
      db
        .prepare('SELECT child_key FROM pcm_products WHERE detached_from = ?')
        .pluck()
        .all(parent.id) as string[],
    );
    const planned = combinations(variations)
      .filter(include)
      .map((combo) => planChild(parent, variations, combo, modifiers))
      .filter((child) => !detached.has(child.key));

    const existing = new Map(
      (
        db.prepare('SELECT id, child_key FROM pcm_products WHERE parent_id = ?').all(parent.id) as {
          id: string;
          child_key: string;
        }[]
      ).map((row) => [row.child_key, row.id]),
    );
    const skus = new Map<string, string>();
    for (const child of planned) {
      const sku = child.fields.sku;
      if (sku === null) continue;
      if (skus.has(sku))
        throw new BuildError(
          `data.attributes.sku: Must be unique amongst products ("${sku}" twice).`,
        );
      skus.set(sku, child.key);
    }
    const taken = db
      .prepare(
        `SELECT sku, parent_id, child_key FROM pcm_products
         WHERE store_id = ? AND sku IN (SELECT value FROM json_each(?))`,
      )
      .all(parent.store_id, JSON.stringify([...skus.keys()])) as {
      sku: string;
      parent_id: string | null;
      child_key: string | null;
    }[];
    for (const row of taken) {
      // A child of this parent may keep its own SKU; anyone else's is a clash.
      if (
        row.parent_id === parent.id &&
        row.child_key !== null &&
        planned.some((c) => c.key === row.child_key)
      )
        continue;
      throw new BuildError(`data.attributes.sku: Must be unique amongst products ("${row.sku}").`);
    }

    const keep = new Set(planned.map((c) => c.key));
    let deleted = 0;
    for (const [key, id] of existing) {
      if (keep.has(key)) continue;
      db.prepare('DELETE FROM pcm_products WHERE id = ?').run(id);
      deleted++;
    }
    // SKUs move between kept children only through a free value: clear them first.
    db.prepare('UPDATE pcm_products SET sku = NULL WHERE parent_id = ?').run(parent.id);
    const inherited = JSON.stringify({
      ...(extra.locales ? { locales: extra.locales } : {}),
      ...(extra.extensions ? { extensions: extra.extensions } : {}),
      ...(extra.custom_inputs ? { custom_inputs: extra.custom_inputs } : {}),
    });
    let created = 0;
    let updated = 0;
    for (const child of planned) {
      const id = existing.get(child.key);
      const stamp = now();
      const { touched: _touched, priceModifiers, ...fields } = child.fields;
      const row = {
        ...fields,
        id: id ?? newId(),
        store_id: parent.store_id,
        tags: parent.tags,
        extra: inherited,
        parent_id: parent.id,
        child_key: child.key,
        child_variations: JSON.stringify(child.childVariations),
        price_modifiers: JSON.stringify(priceModifiers),
        main_image_id: parent.main_image_id,
        files: parent.files,
        created_at: stamp,
        updated_at: stamp,
      };
      if (id === undefined) {
        cachedStatement(
          db,
          `INSERT INTO pcm_products (id, store_id, name, commodity_type, sku, slug, status, description,
             upc_ean, mpn, external_ref, tags, extra, product_type, parent_id, child_key, child_variations,
             price_modifiers, main_image_id, files, created_at, updated_at)
           VALUES (@id, @store_id, @name, @commodity_type, @sku, @slug, @status, @description, @upc_ean,
             @mpn, @external_ref, @tags, @extra, 'child', @parent_id, @child_key, @child_variations,
             @price_modifiers, @main_image_id, @files, @created_at, @updated_at)`,
        ).run(row);
        created++;
      } else {
        const { created_at: _c, ...changes } = row;
        cachedStatement(
          db,
          `UPDATE pcm_products SET name = @name, commodity_type = @commodity_type, sku = @sku,
             slug = @slug, status = @status, description = @description, upc_ean = @upc_ean,
             mpn = @mpn, external_ref = @external_ref, tags = @tags, extra = @extra,
             child_variations = @child_variations, price_modifiers = @price_modifiers,
             main_image_id = @main_image_id, files = @files, updated_at = @updated_at,
             store_id = @store_id, parent_id = @parent_id, child_key = @child_key
           WHERE id = @id`,
        ).run(changes);
        updated++;
      }
    }
    db.prepare(
      `UPDATE pcm_products SET product_type = CASE WHEN EXISTS
         (SELECT 1 FROM pcm_products c WHERE c.parent_id = pcm_products.id) THEN 'parent'
         WHEN json_extract(extra, '$.components') IS NOT NULL THEN 'bundle' ELSE 'standard' END
       WHERE id = ?`,
    ).run(parent.id);
    return { created, updated, deleted };
  })();
}
