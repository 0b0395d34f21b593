/**
 * Which Custom APIs and fields the typed schema maps, under which names: field types to GraphQL
 * scalars, slugs to field names, and each API to its type and root field names (naming.ts).
 * A field or Custom API that cannot be mapped is left out with a reason, never fatal.
 */
import {
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLInt,
  type GraphQLScalarType,
  GraphQLString,
} from 'graphql';
import type { CustomApiDefinition, FieldType } from '../../upstream/custom-api-definitions.ts';
import type { MappedField } from './field-values.ts';
import { fieldNamesFor, namesFor, type TypedNames } from './naming.ts';

/** A Custom API as the typed schema maps it. */
export interface MappedApi {
  customApiId: string;
  apiType: string;
  slug: string;
  names: TypedNames;
  fields: MappedField[];
}

/** A Custom API or field left out, and why (one line for the log). */
export interface SkippedPart {
  apiType: string;
  slug?: string;
  reason: string;
}

export const FIELD_TYPES: readonly FieldType[] = ['string', 'integer', 'float', 'boolean'];

export const SCALARS: Record<FieldType, GraphQLScalarType> = {
  string: GraphQLString,
  integer: GraphQLInt,
  float: GraphQLFloat,
  boolean: GraphQLBoolean,
};

/** Type names the typed schema defines once, whatever the Custom APIs. */
export const SHARED_TYPE_NAMES = [
  'TypedCustomApiEntry',
  'StringFieldFilter',
  'IntFieldFilter',
  'FloatFieldFilter',
  'BooleanFieldFilter',
];

/** The stored value when it has the field's type; anything else (older data) reads as null. */
export function readValue(type: FieldType, value: unknown): unknown {
  switch (type) {
    case 'string':
      return typeof value === 'string' ? value : null;
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value) ? value : null;
    case 'float':
      return typeof value === 'number' ? value : null;
    default:
      return typeof value === 'boolean' ? value : null;
  }
}

/** Maps the fields of one definition; unmappable ones are reported in `skipped`. */
function mapFields(api: CustomApiDefinition, skipped: SkippedPart[]): MappedField[] {
  const usable = api.fields.filter((field) => {
    if ((FIELD_TYPES as readonly string[]).includes(field.fieldType)) return true;
    skipped.push({
      apiType: api.apiType,
      slug: field.slug,
      reason: `field type "${field.fieldType}" has no GraphQL mapping`,
    });
    return false;
  });
  const names = fieldNamesFor(usable.map((field) => field.slug));
  const mapped: MappedField[] = [];
  for (const field of usable) {
    const name = names.get(field.slug);
    if (name === undefined) {
      skipped.push({ apiType: api.apiType, slug: field.slug, reason: 'no valid GraphQL name' });
      continue;
    }
    mapped.push({
      slug: field.slug,
      name,
      type: field.fieldType as FieldType,
      description:
        field.description.trim() !== ''
          ? field.description
          : `${field.name} (the ${field.fieldType} field \`${field.slug}\`).`,
      rules: field.rules,
    });
  }
  return mapped.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * Maps the definitions in api_type order, so names are stable across refreshes. `takenTypes`
 * and `takenRoot` are the names already in use (the base schema's); each mapped API's names
 * are added to them. What cannot be mapped goes to `skipped`.
 */
export function mapApis(
  definitions: readonly CustomApiDefinition[],
  takenTypes: Set<string>,
  takenRoot: Set<string>,
  skipped: SkippedPart[],
): MappedApi[] {
  const mapped: MappedApi[] = [];
  const ordered = [...definitions].sort((a, b) =>
    a.apiType < b.apiType ? -1 : a.apiType > b.apiType ? 1 : 0,
  );
  for (const api of ordered) {
    const fields = mapFields(api, skipped);
    if (fields.length === 0) {
      skipped.push({ apiType: api.apiType, reason: 'it has no fields the typed schema can map' });
      continue;
    }
    const names = namesFor(api, takenTypes, takenRoot);
    if (names === undefined) {
      skipped.push({
        apiType: api.apiType,
        reason: 'its names collide with the schema or cannot be GraphQL names',
      });
      continue;
    }
    for (const name of names.derivedTypes) takenTypes.add(name);
    for (const name of [names.lookup, names.list, names.create, names.update, names.delete]) {
      takenRoot.add(name);
    }
    mapped.push({ customApiId: api.id, apiType: api.apiType, slug: api.slug, names, fields });
  }
  return mapped;
}
