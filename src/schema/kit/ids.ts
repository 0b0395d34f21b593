/**
 * One kind of id input: every id a mutation takes is the object's global `id` (as `createCart
 * { cart { id } }` answers) or its `upstreamId`, either form, judged before any call. A global id
 * of another type, or an upstream id of the wrong form, is refused naming what was expected
 * ("input.cartId must be a Cart id or its upstreamId"). Every id input field is made here
 * (`idInput`), so a test can walk them all (test/gateway/id-inputs.test.ts).
 */
import { BadUserInputError } from '../../upstream/errors.ts';
import type { BuilderTypes } from '../builder.ts';
import { judgeCartId, judgeUuid } from '../rows.ts';

type InputBuilder = PothosSchemaTypes.InputFieldBuilder<BuilderTypes, 'InputObject'>;

/** How an object's upstream id looks: a uuid, or a cart id (caller-chosen in production). */
export type UpstreamIdForm = 'uuid' | 'cart';

export interface IdKind {
  /** The GraphQL type the id names (`Cart`). */
  type: string;
  /** Whether the type has a global `id` (a Relay Node); if not, only its upstream id exists. */
  node: boolean;
  form: UpstreamIdForm;
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * The upstream id inside a global id of `type` (`base64("Cart:<id>")`; a sub-collection row's
 * carries its parents' ids first: `base64("ProductPrice:<book>:<price>")`, the last part is the
 * row's own), or undefined when `value` is not a global id of that type.
 */
function fromGlobal(value: string, type: string): string | null | undefined {
  if (value.length < 8 || !BASE64.test(value)) return undefined;
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  // Only an exact encoding counts: a cart id that happens to be base64 is left to the upstream form.
  if (!GLOBAL.test(decoded) || Buffer.from(decoded, 'utf8').toString('base64') !== value) {
    return undefined;
  }
  // A global id of another type: refused, never sent upstream as if it were an upstream id.
  if (!decoded.startsWith(`${type}:`)) return null;
  const rest = decoded.slice(type.length + 1);
  return rest.slice(rest.lastIndexOf(':') + 1);
}

const GLOBAL = /^[A-Z][A-Za-z0-9]*:./;

function expected(kind: IdKind): string {
  return kind.node ? `a ${kind.type} id or its upstreamId` : `a ${kind.type} upstreamId`;
}

function refuse(field: string, kind: IdKind): never {
  const form = kind.form === 'uuid' ? 'a uuid' : '1-64 letters, digits, "-" or "_"';
  throw new BadUserInputError(
    `${field} must be ${expected(kind)} (${kind.node ? 'the upstreamId is ' : ''}${form})`,
    { field },
  );
}

/** The upstream id an id input names, in either form; BAD_USER_INPUT saying what was expected. */
export function judgeId(value: string, field: string, kind: IdKind): string {
  const global = kind.node ? fromGlobal(value, kind.type) : undefined;
  if (global === null) return refuse(field, kind);
  const upstream = global ?? value;
  try {
    return kind.form === 'uuid' ? judgeUuid(upstream, field) : judgeCartId(upstream, field);
  } catch {
    return refuse(field, kind);
  }
}

/** Every id kind an input field was made for, by `<InputType>.<field>` (read by the id test). */
export const ID_INPUTS = new Map<string, IdKind>();

const kinds = new Map<string, IdKind>();

/** The id kind of a type (`Cart` → a node with a cart-form upstream id). */
export function idKind(type: string, node = true, form: UpstreamIdForm = 'uuid'): IdKind {
  const known = kinds.get(type);
  if (known !== undefined) {
    // One type, one id form: a second description that disagrees is a bug of the schema.
    if (known.node !== node || known.form !== form) throw new Error(`id kind ${type} redefined`);
    return known;
  }
  const kind = { type, node, form };
  kinds.set(type, kind);
  return kind;
}

function register<T>(ref: T, kind: IdKind): T {
  // Pothos names the field when the input type is built: the registry is filled then.
  (
    ref as { onFirstUse(cb: (config: { parentType: string; name: string }) => void): void }
  ).onFirstUse((config) => {
    ID_INPUTS.set(`${config.parentType}.${config.name}`, kind);
  });
  return ref;
}

/** A required id input field (`ID!`) described with the forms it takes; judge it with `judgeId`. */
export function idInput(t: InputBuilder, kind: IdKind, about: string) {
  return register(t.id({ required: true, description: `${about}: ${expected(kind)}.` }), kind);
}

/** An optional id input field (`ID`). */
export function optionalIdInput(t: InputBuilder, kind: IdKind, about: string) {
  return register(t.id({ required: false, description: `${about}: ${expected(kind)}.` }), kind);
}

/** A list of ids (`[ID!]!`), each the global id or the upstreamId; judge it with `judgeIdList`. */
export function idListInput(t: InputBuilder, kind: IdKind, about: string, required = true) {
  const description = `${about}: each ${expected(kind)}.`;
  // Typed as required: an optional list (an update's) is read only when given.
  return register(t.idList({ required: required as true, description }), kind);
}

/** A list of ids, each judged at `field[i]`. */
export function judgeIdList(
  values: readonly string[],
  field: string,
  kind: IdKind,
  count: { min?: number; max: number },
): string[] {
  const min = count.min ?? 0;
  if (values.length < min || values.length > count.max) {
    throw new BadUserInputError(
      `${field} must list ${min === 0 ? 'at most' : `${min} to`} ${count.max} ids`,
      { field },
    );
  }
  const ids = values.map((value, i) => judgeId(value, `${field}[${i}]`, kind));
  // Both forms of one id are the same id: named twice, it is refused once judged.
  if (new Set(ids).size !== ids.length) {
    throw new BadUserInputError(`${field} lists the same item twice`, { field });
  }
  return ids;
}

/** A described resource's parent id: how it is judged, and its argument's description. */
export interface ParentId {
  description: string;
  judge: (value: string) => string;
  kind: IdKind | undefined;
}

/**
 * The parent ids of a described resource (src/schema/resource.ts), each given by its text alone
 * (an upstream id) or with what it names (`['The Custom API.', idKind('CustomApi')]`: either
 * form).
 */
export function parentIds(
  params: Readonly<Record<string, string | readonly [string, IdKind]>>,
): Record<string, ParentId> {
  const parents: Record<string, ParentId> = {};
  for (const [name, given] of Object.entries(params)) {
    const [about, kind] = typeof given === 'string' ? [given, undefined] : given;
    parents[name] = {
      kind,
      description: kind === undefined ? about : `${about} Its id or its upstreamId.`,
      judge: (value) => (kind === undefined ? judgeUuid(value, name) : judgeId(value, name, kind)),
    };
  }
  return parents;
}
