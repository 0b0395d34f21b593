/**
 * The input types of typed entries: one filter type per field type (`StringFieldFilter`…), and
 * per Custom API its list filter and the inputs of create, update and delete. Values are judged
 * against their definitions by field-values.ts, not here.
 */
import {
  GraphQLBoolean,
  GraphQLID,
  GraphQLInputObjectType,
  type GraphQLInputType,
  GraphQLList,
  GraphQLString,
} from 'graphql';
import type { FieldType } from '../../upstream/custom-api-definitions.ts';
import { type BaseTypes, nonNull } from './base-types.ts';
import { FILTER_OPS } from './field-values.ts';
import { FIELD_TYPES, type MappedApi, SCALARS } from './mapping.ts';

const OP_DESCRIPTIONS: Record<string, string> = {
  eq: 'Equal to.',
  in: 'Equal to one of these.',
  lt: 'Less than (strings: in byte order).',
  le: 'Less than or equal to.',
  gt: 'Greater than.',
  ge: 'Greater than or equal to.',
  like: 'Matches this pattern; `*` is the wildcard (ASCII case-insensitive).',
  isNull: 'True: no value (missing or null). False: has a value.',
};

export type FieldFilterTypes = Record<FieldType, GraphQLInputObjectType>;

/** `StringFieldFilter`, `IntFieldFilter`, `FloatFieldFilter`, `BooleanFieldFilter`. */
export function fieldFilterTypes(): FieldFilterTypes {
  const label: Record<FieldType, string> = {
    string: 'String',
    integer: 'Int',
    float: 'Float',
    boolean: 'Boolean',
  };
  const entries = FIELD_TYPES.map((type) => {
    const scalar = SCALARS[type];
    const fields: Record<string, { type: GraphQLInputType; description: string }> = {};
    for (const op of FILTER_OPS[type]) {
      fields[op] = {
        type:
          op === 'isNull'
            ? GraphQLBoolean
            : op === 'in'
              ? new GraphQLList(nonNull(scalar))
              : scalar,
        description: OP_DESCRIPTIONS[op] ?? op,
      };
    }
    return [
      type,
      new GraphQLInputObjectType({
        name: `${label[type]}FieldFilter`,
        description: `Conditions on a ${type} field of a typed Custom API, all of which must hold.`,
        fields,
      }),
    ] as const;
  });
  return Object.fromEntries(entries) as FieldFilterTypes;
}

export interface EntryInputTypes {
  Filter: GraphQLInputObjectType;
  CreateInput: GraphQLInputObjectType;
  UpdateInput: GraphQLInputObjectType;
  DeleteInput: GraphQLInputObjectType;
}

/** One Custom API's list filter and the inputs of its mutations. */
export function createEntryInputTypes(
  api: MappedApi,
  base: BaseTypes,
  filters: FieldFilterTypes,
): EntryInputTypes {
  const { fields } = api;
  const T = api.names.type;
  const Filter = new GraphQLInputObjectType({
    name: `${T}Filter`,
    description: `Conditions on the ${T} list, all of which must hold.`,
    fields: () => {
      const own: Record<string, { type: GraphQLInputType; description: string }> = {
        id: { type: base.IDFilter, description: 'On the upstream id.' },
        createdAt: { type: base.DateTimeFilter, description: 'On the creation time.' },
        updatedAt: { type: base.DateTimeFilter, description: 'On the last update time.' },
      };
      for (const field of fields) {
        own[field.name] = { type: filters[field.type], description: `On ${field.name}.` };
      }
      return own;
    },
  });
  const inputFields = (mode: 'create' | 'update') => {
    const own: Record<string, { type: GraphQLInputType; description: string }> = {};
    if (mode === 'update') {
      own.id = { type: nonNull(GraphQLID), description: 'Upstream id of the entry.' };
      own.ifMatch = {
        type: GraphQLString,
        description: 'Only update if the entry still has this etag (PRECONDITION_FAILED if not).',
      };
    }
    for (const field of fields) {
      const required = mode === 'create' && !field.rules.allowNull;
      own[field.name] = {
        type: SCALARS[field.type],
        description: `${field.description}${required ? ' Required: the field does not allow null values.' : ''}`,
      };
    }
    return own;
  };
  const CreateInput = new GraphQLInputObjectType({
    name: `Create${T}Input`,
    description: `A new ${T}; its fields are judged against their definitions before any upstream call.`,
    fields: () => inputFields('create'),
  });
  const UpdateInput = new GraphQLInputObjectType({
    name: `Update${T}Input`,
    description: `A partial update of a ${T}: fields not given keep their values.`,
    fields: () => inputFields('update'),
  });
  const DeleteInput = new GraphQLInputObjectType({
    name: `Delete${T}Input`,
    description: `The ${T} to delete.`,
    fields: {
      id: { type: nonNull(GraphQLID), description: 'Upstream id of the entry.' },
      ifMatch: {
        type: GraphQLString,
        description: 'Only delete if the entry still has this etag (PRECONDITION_FAILED if not).',
      },
    },
  });
  return { Filter, CreateInput, UpdateInput, DeleteInput };
}
