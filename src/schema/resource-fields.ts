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
  /**
   * The enum type it is shown as, when its values are an enum's (read as the string the API
   * writes, shown as the enum's name: `live` is `LIVE`, as the input that wrote it).
   */
  readonly shownAs?: unknown;
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
  /** A string the API writes from a fixed set, shown as the enum an input writes it with. */
  enum(
    type: unknown,
    description: string,
    options: FieldOptions<string> = {},
  ): FieldDescription<string> {
    return { ...scalar('String')(description, options), shownAs: type };
  },
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

/** Reads a nullable value of another type than these as null. */
const optionalInt = (object: JsonObject, key: string) =>
  typeof object[key] === 'number' ? object[key] : null;
const optionalObject = (object: JsonObject, key: string) =>
  isJsonObject(object[key]) ? object[key] : null;
const optionalBoolean = (object: JsonObject, key: string) =>
  typeof object[key] === 'boolean' ? object[key] : null;

/** What the compiled readers call, by the names their source uses. */
const HELPERS = {
  readString,
  readInt,
  readObject,
  readBoolean,
  readOptionalString,
  optionalInt,
  optionalObject,
  optionalBoolean,
  isJsonObject,
};

/** A required value by its GraphQL type; its absence or another type is an unusable row. */
const REQUIRED: Record<ScalarName, keyof typeof HELPERS> = {
  ID: 'readString',
  String: 'readString',
  DateTime: 'readString',
  Int: 'readInt',
  JSONObject: 'readObject',
  Boolean: 'readBoolean',
};

/** A nullable value by its GraphQL type: null when absent or of another type. */
const OPTIONAL: Record<ScalarName, keyof typeof HELPERS> = {
  ID: 'readOptionalString',
  String: 'readOptionalString',
  DateTime: 'readOptionalString',
  Int: 'optionalInt',
  JSONObject: 'optionalObject',
  Boolean: 'optionalBoolean',
};

const literal = (value: string) => JSON.stringify(value);

/**
 * The source of an expression reading a dotted path of `row`. Required: every step must be an
 * object, and the message names the path from the row's label (`order.meta.display_price is not
 * an object`). Nullable: a missing step or a value of another type is null; `step` is the
 * reader's one scratch variable (each field's expression is done before the next begins).
 */
function pathSource(path: string, type: ScalarName, nullable: boolean, label: string): string {
  const keys = path.split('.');
  const last = keys.pop() as string;
  if (nullable) {
    const leaf = `${OPTIONAL[type]}(${keys.length === 0 ? 'row' : 'step'}, ${literal(last)})`;
    if (keys.length === 0) return leaf;
    const steps = keys.map(
      (key, i) => `isJsonObject(step = ${i === 0 ? 'row' : 'step'}[${literal(key)}])`,
    );
    return `(${steps.join(' && ')} ? ${leaf} : null)`;
  }
  let object = 'row';
  let where = label;
  for (const key of keys) {
    object = `readObject(${object}, ${literal(key)}, ${literal(where)})`;
    where = `${where}.${key}`;
  }
  return `${REQUIRED[type]}(${object}, ${literal(last)}, ${literal(where)})`;
}

/** Where a field without `from` or `read` is found: its snake_case name in the body. */
export type DefaultPath = (name: string) => string;

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/**
 * One function reading a row into the shape, compiled once per resource (at schema build) from
 * the descriptions: an object literal of the fields in declaration order, each read by a direct
 * call with its key and label as constants, which is what a hand-written reader is. Every listed
 * row goes through here on the hot path: readers composed of closures, or a loop storing keyed
 * properties, cost more per row (their property reads cannot be specialised to one key) and
 * leave the rows of one resource without a shared hidden class. The generated source holds only
 * field names (checked to be identifiers), JSON string literals, the helpers above and indexes
 * into `readers` (the fields' own `read` functions).
 */
export function compileRowReader<F extends FieldDescriptions>(
  fields: F,
  label: string,
  defaultPath: DefaultPath,
): (row: JsonObject, params: PathParams) => ShapeOf<F> {
  const readers: RowReader<unknown>[] = [];
  const entries = Object.entries(fields).map(([name, description]) => {
    if (!IDENTIFIER.test(name)) throw new Error(`resource ${label}: ${name} is not a field name`);
    if (description.read) {
      readers.push(description.read);
      return `${name}: readers[${readers.length - 1}](row, params)`;
    }
    if (description.param !== undefined) return `${name}: params[${literal(description.param)}]`;
    if (description.type === undefined) throw new Error(`resource ${label}: ${name} reads nothing`);
    const path = description.from ?? defaultPath(name);
    return `${name}: ${pathSource(path, description.type, description.nullable, label)}`;
  });
  const names = Object.keys(HELPERS);
  const source = `return function read(row, params) {\n  let step;\n  return {\n    ${entries.join(',\n    ')}\n  };\n};`;
  const compile = new Function('readers', ...names, source);
  return compile(readers, ...names.map((name) => HELPERS[name as keyof typeof HELPERS]));
}
