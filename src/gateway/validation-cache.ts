/**
 * The validation cache, in place of Yoga's (whose parse cache stays, over createParseCache's
 * store below): a document already validated against a schema with the same rules gets the same
 * result without validating again.
 *
 * Yoga keys its cache by the rules' names, joined into one string on every request (armor adds
 * its rules as new functions each time, so their identity cannot be the key): ~35 rules read by
 * name, a 600-character string built and hashed, on every request (its cost:
 * docs/benchmarks.md). Here the rules are compared with the previous rule sets one by one, by identity
 * first (graphql-js's own rules are the same functions every time) and by name only where that
 * differs: the same key as Yoga's, with nothing built.
 *
 * It must come after every plugin that adds a validation rule (armor, introspection), as
 * Yoga's does: createGateway puts it last.
 */
import type { ValidationRule } from 'graphql';
import type { Plugin } from 'graphql-yoga';

interface RuleSet {
  rules: readonly ValidationRule[];
  names: readonly string[];
  results: WeakMap<object, WeakMap<object, ValidationResult>>;
}

/** What envelop's onValidate hooks see as a result, and what setResult takes back. */
type ValidationResult = Parameters<
  Parameters<NonNullable<Plugin['onValidate']>>[0]['setResult']
>[0];

/** Rule sets remembered (one per distinct set of rule names seen; a gateway has one or two). */
const MAX_RULE_SETS = 16;
const NO_RULES: readonly ValidationRule[] = [];

function sameRules(set: RuleSet, rules: readonly ValidationRule[]): boolean {
  if (set.rules.length !== rules.length) return false;
  for (let i = 0; i < rules.length; i++) {
    const rule = rules[i] as ValidationRule;
    if (rule !== set.rules[i] && rule.name !== set.names[i]) return false;
  }
  return true;
}

export function validationCachePlugin(): Plugin {
  const sets: RuleSet[] = [];
  const setFor = (rules: readonly ValidationRule[]): RuleSet => {
    for (const set of sets) if (sameRules(set, rules)) return set;
    const set: RuleSet = {
      rules: [...rules],
      names: rules.map((rule) => rule.name),
      results: new WeakMap(),
    };
    if (sets.length === MAX_RULE_SETS) sets.shift();
    sets.push(set);
    return set;
  };
  return {
    onValidate({ params: { schema, documentAST, rules }, setResult }) {
      if (schema == null) return;
      const set = setFor(rules ?? NO_RULES);
      let bySchema = set.results.get(schema);
      if (bySchema === undefined) {
        bySchema = new WeakMap();
        set.results.set(schema, bySchema);
      }
      const cached = bySchema.get(documentAST);
      if (cached !== undefined) {
        setResult(cached);
        return;
      }
      const forSchema = bySchema;
      return ({ result }) => {
        if (result != null) forSchema.set(documentAST, result);
      };
    },
  };
}

/** Documents Yoga's parse cache keeps (its own default: 1,024, for an hour). */
export const PARSE_CACHE_SIZE = 1_024;

/**
 * The store of Yoga's parse cache (documents and parse errors by the query text), in place of
 * its LRU with a time to live: that one reads the clock on every lookup and, to read it at most
 * once a millisecond, sets a timer each time it does: a timer per request at the rates a
 * gateway serves, for entries that never go stale (a text always parses to the same document).
 * Here two generations of a Map: a hit is one lookup (one more, and a move, for an entry of the
 * older generation); when the young one is full it becomes the old one and the old is dropped,
 * so at most `size` texts are kept and the ones in use stay.
 */
export function createParseCache<T>(size = PARSE_CACHE_SIZE): {
  get(key: string): T | undefined;
  set(key: string, value: T): void;
} {
  const half = Math.max(1, Math.floor(size / 2));
  let young = new Map<string, T>();
  let old = new Map<string, T>();
  const set = (key: string, value: T) => {
    if (young.size >= half) {
      old = young;
      young = new Map();
    }
    young.set(key, value);
  };
  return {
    get(key) {
      const found = young.get(key);
      if (found !== undefined) return found;
      const aging = old.get(key);
      if (aging !== undefined) {
        old.delete(key);
        set(key, aging);
      }
      return aging;
    },
    set,
  };
}
