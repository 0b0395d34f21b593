/**
 * The naming rules of the typed schema (docs/storefront.md, "Typed Custom APIs"). Deterministic: the same
 * definitions always give the same names, whatever order the upstream lists them in.
 *
 * - Type: PascalCase of the api_type without `_ext` (`gift_card_ext` → `GiftCard`); a name that
 *   would start with a digit gets the prefix `Api` (`3d_model_ext` → `Api3dModel`).
 * - Fields: camelCase of the slug, splitting at `-` and `_` (`gift-code` → `giftCode`); a leading
 *   digit gets the prefix `_` (`2fa` → `_2fa`). A name the typed entry already uses (`id`,
 *   `upstreamId`, `createdAt`, `updatedAt`, `etag`, `resourceVersion`, `dataSize`, `ifMatch`) gets
 *   the suffix `Field`; two slugs that camelCase alike are resolved in slug order: the first keeps
 *   the name, the next gets `Field`, then `Field2`, `Field3`…
 * - Root fields: the lookup is the type name with a lowercase first letter (`giftCard`); the
 *   connection is the camelCase of the Custom API slug (`giftCards`), or `<lookup>List` when that
 *   equals the lookup or is taken; mutations are `create<Type>`, `update<Type>`, `delete<Type>`.
 * - Collisions between Custom APIs or with the base schema (any type, or any root field): Custom
 *   APIs are taken in api_type order; each uses the first of `<Type>`, `<Type>Ext`, `<Type>Ext2`…
 *   `<Type>Ext9` whose every derived name is free. One that finds none is left out (and stays
 *   reachable through the generic API).
 */

/** Names on every typed entry and its inputs that a field must not take. */
export const RESERVED_FIELD_NAMES = new Set([
  'id',
  'upstreamId',
  'createdAt',
  'updatedAt',
  'etag',
  'resourceVersion',
  'dataSize',
  'ifMatch',
]);

const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

function words(text: string): string[] {
  return text.split(/[-_]+/).filter((word) => word !== '');
}

const upperFirst = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** `gift_card_ext` → `GiftCard`; undefined when nothing usable is left. */
export function typeNameFor(apiType: string): string | undefined {
  const stem = apiType.replace(/_ext$/, '');
  const name = words(stem)
    .map((word) => upperFirst(word.toLowerCase()))
    .join('');
  if (name === '') return undefined;
  const safe = /^[0-9]/.test(name) ? `Api${name}` : name;
  return GRAPHQL_NAME.test(safe) ? safe : undefined;
}

/** `gift-code` → `giftCode`; undefined when nothing usable is left. */
export function camelName(slug: string): string | undefined {
  const [first, ...rest] = words(slug.toLowerCase());
  if (first === undefined) return undefined;
  const name = first + rest.map(upperFirst).join('');
  const safe = /^[0-9]/.test(name) ? `_${name}` : name;
  return GRAPHQL_NAME.test(safe) && !safe.startsWith('__') ? safe : undefined;
}

/**
 * GraphQL field names for the given slugs (a map slug → name); slugs that give no valid name
 * are absent from the map.
 */
export function fieldNamesFor(slugs: readonly string[]): Map<string, string> {
  const taken = new Set(RESERVED_FIELD_NAMES);
  const names = new Map<string, string>();
  const ordered = [...new Set(slugs)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const slug of ordered) {
    const base = camelName(slug);
    if (base === undefined) continue;
    let name = base;
    for (let n = 1; taken.has(name); n += 1) name = `${base}Field${n === 1 ? '' : n}`;
    taken.add(name);
    names.set(slug, name);
  }
  return names;
}

/** Every name one typed Custom API adds to the schema. */
export interface TypedNames {
  type: string;
  lookup: string;
  list: string;
  create: string;
  update: string;
  delete: string;
  /** Type names derived from `type` (connection, edge, filter, inputs, payloads). */
  derivedTypes: string[];
}

export function derivedTypeNames(type: string): string[] {
  return [
    type,
    `${type}Connection`,
    `${type}Edge`,
    `${type}Filter`,
    `Create${type}Input`,
    `Update${type}Input`,
    `Delete${type}Input`,
    `Create${type}Payload`,
    `Update${type}Payload`,
    `Delete${type}Payload`,
  ];
}

/**
 * Names for one Custom API, or undefined when every candidate collides. `takenTypes` and
 * `takenRootFields` are the names already in use (base schema and earlier Custom APIs).
 */
export function namesFor(
  api: { apiType: string; slug: string },
  takenTypes: ReadonlySet<string>,
  takenRootFields: ReadonlySet<string>,
): TypedNames | undefined {
  const stem = typeNameFor(api.apiType);
  if (stem === undefined) return undefined;
  const candidates = [
    stem,
    `${stem}Ext`,
    ...Array.from({ length: 8 }, (_, i) => `${stem}Ext${i + 2}`),
  ];
  for (const type of candidates) {
    const derivedTypes = derivedTypeNames(type);
    if (derivedTypes.some((name) => takenTypes.has(name))) continue;
    const lookup = type.charAt(0).toLowerCase() + type.slice(1);
    const fromSlug = camelName(api.slug);
    const list =
      fromSlug !== undefined && fromSlug !== lookup && !takenRootFields.has(fromSlug)
        ? fromSlug
        : `${lookup}List`;
    const root = [lookup, list, `create${type}`, `update${type}`, `delete${type}`];
    if (root.some((name) => takenRootFields.has(name))) continue;
    return {
      type,
      lookup,
      list,
      create: `create${type}`,
      update: `update${type}`,
      delete: `delete${type}`,
      derivedTypes,
    };
  }
  return undefined;
}
