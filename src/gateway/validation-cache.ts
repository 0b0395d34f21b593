/**
 * The validation cache, in place of Yoga's (whose parse cache stays): a document already
 * validated against a schema with the same rules gets the same result without validating again.
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
