/**
 * The attributes of a described resource (resource.ts): what each field of its GraphQL type is,
 * and how it is read from one upstream JSON row. The readers of one resource are compiled into one
 * function that returns an object literal, so every row of a list is read as a hand-written
 * reader would read it: the checks in the order the fields are declared, one object per row, one
 * hidden class for all rows of the resource.
 */
import { isJsonObject, type JsonObject } from '../upstream/client.ts';
import { readBoolean, readInt, readObject, readOptionalString, readString } from './rows.ts';

/** The scalars a described field may have, with the value its shape carries. */
export interface ScalarValues {
  ID: string;
  String: string;
  Int: number;
  Boolean: boolean;
  DateTime: string;
  JSONObject: JsonObject;
}
export type ScalarName = keyof ScalarValues;

/** The parameters of a sub-collection's path (`{customApiId}`), as the rows' reader gets them. */
export type PathParams = Readonly<Record<string, string>>;

/** Reads one field's value from a row (and, in a sub-collection, its parent's path parameters). */
export type RowReader<V> = (row: JsonObject, params: PathParams) => V;

/** One attribute of a resource; `V` is the value its shape carries. */
export interface FieldDescription<V> {
  /** Its GraphQL type; undefined for a value carried on the shape for the resolvers, not shown. */
  readonly type: ScalarName | undefined;
  readonly nullable: boolean;
  readonly description: string;
  /** Dotted path in the row: `status`, `customer.name`, `meta.display_price`. */
  readonly from: string | undefined;
  /** A reader of its own, instead of `from`. */
  readonly read: RowReader<V> | undefined;
  /** A parameter of the sub-collection's path (the entry's `customApiId`), instead of `from`. */
  readonly param: string | undefined;
  /** Phantom: the value type, for the shape. */
  readonly __value?: V;
}

interface FieldOptions<V> {
  /** Dotted path in the row; default: the field name in snake_case, in the body (resource.ts). */
  from?: string;
  /** A reader of its own, for what a path cannot say. */
  read?: RowReader<V>;
}

function scalar<N extends ScalarName>(type: N) {
  function make(
    description: string,
    options?: FieldOptions<ScalarValues[N]> & { nullable?: false },
  ): FieldDescription<ScalarValues[N]>;
  function make(
    description: string,
    options: FieldOptions<ScalarValues[N] | null> & { nullable: true },
  ): FieldDescription<ScalarValues[N] | null>;
  function make(
    description: string,
    options: FieldOptions<unknown> & { nullable?: boolean } = {},
  ): FieldDescription<unknown> {
    return {
      type,
      nullable: options.nullable ?? false,
      description,
      from: options.from,
      read: options.read,
      param: undefined,
    };
  }
  return make;
}

/** The attribute kinds of a description: `field.string('Order status.', { from: 'status' })`. */
export const field = {
  id: scalar('ID'),
  string: scalar('String'),
  int: scalar('Int'),
  boolean: scalar('Boolean'),
  dateTime: scalar('DateTime'),
  json: scalar('JSONObject'),
  /** A value the resolvers of hand-written fields need (an order's `display_price`), not shown. */
  carried<V>(read: RowReader<V>): FieldDescription<V> {
    return {
      type: undefined,
      nullable: false,
      description: '',
      from: undefined,
      read,
      param: undefined,
    };
  },
  /** The parent's id a sub-collection row belongs to, shown as an `ID!` field. */
  param(name: string, description: string): FieldDescription<string> {
    return {
      type: 'ID',
      nullable: false,
      description,
      from: undefined,
      read: undefined,
      param: name,
    };
  },
};

export type FieldDescriptions = Record<string, FieldDescription<unknown>>;

/** The shape a resource's rows are read into: one property per described field. */
export type ShapeOf<F extends FieldDescriptions> = {
  [K in keyof F]: F[K] extends FieldDescription<infer V> ? V : never;
};

export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (upper) => `_${upper.toLowerCase()}`);
}

type Leaf = (object: JsonObject, key: string, label: string) => unknown;

/** A required value at `key` of an object, by its GraphQL type; its absence is an unusable row. */
const REQUIRED: Record<ScalarName, Leaf> = {
  ID: readString,
  String: readString,
  DateTime: readString,
  Int: readInt,
  JSONObject: readObject,
  Boolean: readBoolean,
};

/** A nullable value at `key`: null when absent or of another type. */
const OPTIONAL: Record<ScalarName, (object: JsonObject, key: string) => unknown> = {
  ID: readOptionalString,
  String: readOptionalString,
  DateTime: readOptionalString,
  Int: (object, key) => (typeof object[key] === 'number' ? object[key] : null),
  JSONObject: (object, key) => (isJsonObject(object[key]) ? object[key] : null),
  Boolean: (object, key) => (typeof object[key] === 'boolean' ? object[key] : null),
};

/**
 * The reader of a dotted path. Required: every step must be an object, and the message names the
 * path from the row's label (`order.meta.display_price is not an object`). Nullable: a missing
 * step or a value of another type is null.
 */
function pathReader(
  path: string,
  type: ScalarName,
  nullable: boolean,
  label: string,
): RowReader<unknown> {
  const keys = path.split('.');
  const last = keys.pop() as string;
  if (nullable) {
    const leaf = OPTIONAL[type];
    if (keys.length === 0) return (row) => leaf(row, last);
    return (row) => {
      let object: unknown = row;
      for (const key of keys) {
        object = (object as JsonObject)[key];
        if (!isJsonObject(object)) return null;
      }
      return leaf(object as JsonObject, last);
    };
  }
  const leaf = REQUIRED[type];
  if (keys.length === 0) return (row) => leaf(row, last, label);
  const labels = keys.map((_, i) => [label, ...keys.slice(0, i)].join('.'));
  const leafLabel = [label, ...keys].join('.');
  return (row) => {
    let object = row;
    for (let i = 0; i < keys.length; i++) {
      object = readObject(object, keys[i] as string, labels[i] as string);
    }
    return leaf(object, last, leafLabel);
  };
}

/** Where a field without `from` or `read` is found: its snake_case name in the body. */
export type DefaultPath = (name: string) => string;

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/**
 * One function reading a row into the shape. It is compiled (once per resource, at schema build)
 * into a function returning an object literal of the fields in declaration order, as a
 * hand-written reader would: every listed row goes through here on the hot path, and a loop
 * storing keyed properties one by one costs more per row and leaves the rows of one resource
 * without a shared hidden class. The generated source holds nothing but the field names, checked
 * to be identifiers, and indexes into `readers`.
 */
export function compileRowReader<F extends FieldDescriptions>(
  fields: F,
  label: string,
  defaultPath: DefaultPath,
): (row: JsonObject, params: PathParams) => ShapeOf<F> {
  const names = Object.keys(fields);
  const readers = names.map((name): RowReader<unknown> => {
    if (!IDENTIFIER.test(name)) throw new Error(`resource ${label}: ${name} is not a field name`);
    const description = fields[name] as FieldDescription<unknown>;
    if (description.read) return description.read;
    const param = description.param;
    if (param !== undefined) return (_row, params) => params[param];
    if (description.type === undefined) throw new Error(`resource ${label}: ${name} reads nothing`);
    const path = description.from ?? defaultPath(name);
    return pathReader(path, description.type, description.nullable, label);
  });
  const body = names.map((name, i) => `${name}: readers[${i}](row, params)`).join(',\n');
  const compile = new Function(
    'readers',
    `return function read(row, params) {\nreturn {\n${body}\n};\n};`,
  );
  return compile(readers) as (row: JsonObject, params: PathParams) => ShapeOf<F>;
}
