/**
 * The one reader of `include=`: every route that takes includes reads them here, so every route
 * accepts both forms clients send. The production API documents `include=a,b`; the official SDK
 * (`@epcc-sdk/sdks-shopper`) sends an array as a repeated parameter, `include=a&include=b`,
 * which the query parser hands over as a list. Both, and any mix (`include=a,b&include=c`),
 * mean the union of the names; blanks between commas are skipped. An unknown name is a 400
 * naming it and the names the route allows.
 */
import { badRequest } from './errors.ts';

/** More names than any route has, counted before judging: a bound on a repeated parameter. */
const MAX_NAMES = 32;

/**
 * The include names of `raw` (the `include` query value: absent, a string or a list of
 * strings), each one of `allowed` or an `aliases` key (reported as its target); 400 otherwise.
 */
export function parseIncludes<T extends string>(
  raw: unknown,
  allowed: readonly T[],
  aliases: Readonly<Record<string, T>> = {},
): Set<T> {
  const names = new Set<T>();
  if (raw === undefined || raw === null) return names;
  const parts = typeof raw === 'string' ? [raw] : Array.isArray(raw) ? raw : [raw];
  const given: string[] = [];
  for (const part of parts) {
    if (typeof part !== 'string') {
      throw badRequest('include must be a comma-separated list of names.', 'include');
    }
    for (const name of part.split(',')) {
      const trimmed = name.trim();
      if (trimmed !== '') given.push(trimmed);
    }
    if (given.length > MAX_NAMES) {
      throw badRequest(`include may name at most ${MAX_NAMES} resources.`, 'include');
    }
  }
  for (const name of given) {
    const known = (allowed as readonly string[]).includes(name)
      ? (name as T)
      : Object.hasOwn(aliases, name)
        ? aliases[name]
        : undefined;
    if (known === undefined) {
      // Echo the name only when it is short and plain; anything else is described.
      const shown = /^[\w.-]{1,64}$/.test(name) ? `"${name}"` : 'a name';
      const list = allowed.length === 1 ? `the only one allowed is "${allowed[0]}"` : '';
      throw badRequest(
        list === ''
          ? `Unknown include ${shown}; allowed: ${allowed.join(', ')}.`
          : `Unknown include ${shown}; ${list}.`,
        'include',
      );
    }
    names.add(known);
  }
  return names;
}
