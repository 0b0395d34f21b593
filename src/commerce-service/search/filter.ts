/**
 * `filter_by`, in the syntax production's Catalog Search takes (and the reference storefront's
 * InstantSearch adapter writes): clauses `field:value` joined by `&&` and `||` (`&&` binds
 * tighter), grouped with parentheses. A clause's operator is one of
 * - `:=` exact value, `:` the value's words appear in the field's value (both ignore case),
 *   `:!=` / `:!` their negations;
 * - `:>`, `:>=`, `:<`, `:<=` on numbers (prices, dates, numeric custom fields);
 * and its value is one value, or a list `[a, b, c]` (any of them), where a number may be a range
 * `10..100` (both ends included). A value with commas, brackets or parentheses goes in
 * backticks: `` meta.search.categories.lvl1:=`Departments > Kitchen` ``.
 *
 * Parsing only checks the syntax; compile.ts resolves the fields against a release's index.
 */
import { ApiError } from '../errors.ts';

export const MAX_FILTER_LENGTH = 4_096;
export const MAX_FILTER_CLAUSES = 64;
export const MAX_FILTER_DEPTH = 8;
export const MAX_LIST_VALUES = 100;

export type Comparison = '>' | '>=' | '<' | '<=';

export type FilterValue =
  | { kind: 'value'; text: string }
  | { kind: 'range'; from: string; to: string };

export type FilterNode =
  | { kind: 'and' | 'or'; items: FilterNode[] }
  | {
      kind: 'match';
      field: string;
      /** `:=` (true) or `:` (false). */
      exact: boolean;
      negate: boolean;
      values: FilterValue[];
    }
  | { kind: 'compare'; field: string; op: Comparison; value: string };

/** A 400 about `filter_by` (production's title for it: "Invalid Filter"). */
export function invalidFilter(detail: string, source = 'filter_by'): ApiError {
  return new ApiError(400, `${source}: ${detail}`, { title: 'Invalid Filter', source });
}

class Parser {
  #at = 0;
  #clauses = 0;
  readonly #text: string;
  readonly #source: string;

  constructor(text: string, source: string) {
    this.#text = text;
    this.#source = source;
  }

  fail(message: string): never {
    throw invalidFilter(`${message} (at character ${this.#at + 1}).`, this.#source);
  }

  skipSpace() {
    while (this.#at < this.#text.length && /\s/.test(this.#text[this.#at] ?? '')) this.#at++;
  }

  peek(token: string): boolean {
    this.skipSpace();
    return this.#text.startsWith(token, this.#at);
  }

  take(token: string): boolean {
    if (!this.peek(token)) return false;
    this.#at += token.length;
    return true;
  }

  parse(): FilterNode {
    const node = this.or(0);
    this.skipSpace();
    if (this.#at < this.#text.length) this.fail(`unexpected "${this.#text[this.#at]}"`);
    return node;
  }

  or(depth: number): FilterNode {
    const items = [this.and(depth)];
    while (this.take('||')) items.push(this.and(depth));
    return items.length === 1 ? (items[0] as FilterNode) : { kind: 'or', items };
  }

  and(depth: number): FilterNode {
    const items = [this.unary(depth)];
    while (this.take('&&')) items.push(this.unary(depth));
    return items.length === 1 ? (items[0] as FilterNode) : { kind: 'and', items };
  }

  unary(depth: number): FilterNode {
    if (this.take('(')) {
      if (depth + 1 > MAX_FILTER_DEPTH) {
        this.fail(`groups nest at most ${MAX_FILTER_DEPTH} deep`);
      }
      const node = this.or(depth + 1);
      if (!this.take(')')) this.fail('a "(" is not closed');
      return node;
    }
    return this.clause();
  }

  clause(): FilterNode {
    this.skipSpace();
    if (++this.#clauses > MAX_FILTER_CLAUSES) {
      this.fail(`at most ${MAX_FILTER_CLAUSES} conditions`);
    }
    const start = this.#at;
    const colon = this.#text.indexOf(':', start);
    if (colon < 0) this.fail('a condition is `field:value`; no ":" follows');
    const field = this.#text.slice(start, colon).trim();
    if (field === '' || !/^[A-Za-z0-9_.()-]+$/.test(field)) {
      this.fail(`"${field.slice(0, 100)}" is not a field name`);
    }
    this.#at = colon + 1;
    let op = '';
    for (const candidate of ['!=', '>=', '<=', '=', '!', '>', '<']) {
      if (this.#text.startsWith(candidate, this.#at)) {
        op = candidate;
        this.#at += candidate.length;
        break;
      }
    }
    this.skipSpace();
    if (op === '>' || op === '>=' || op === '<' || op === '<=') {
      return { kind: 'compare', field, op, value: this.value(false) };
    }
    const values = this.peek('[') ? this.list() : [this.single()];
    return {
      kind: 'match',
      field,
      exact: op === '=' || op === '!=',
      negate: op.startsWith('!'),
      values,
    };
  }

  list(): FilterValue[] {
    this.take('[');
    const values: FilterValue[] = [];
    do {
      if (values.length >= MAX_LIST_VALUES)
        this.fail(`a list holds at most ${MAX_LIST_VALUES} values`);
      values.push(this.single(true));
    } while (this.take(','));
    if (!this.take(']')) this.fail('a "[" is not closed');
    return values;
  }

  single(inList = false): FilterValue {
    const text = this.value(inList);
    const range = /^(-?\d+(?:\.\d+)?)\s*\.\.\s*(-?\d+(?:\.\d+)?)$/.exec(text);
    if (range !== null) return { kind: 'range', from: range[1] as string, to: range[2] as string };
    return { kind: 'value', text };
  }

  /** A value: `backticked`, or bare up to `&&`, `||`, `)` (and `,` `]` in a list). */
  value(inList: boolean): string {
    this.skipSpace();
    if (this.#text[this.#at] === '`') {
      const end = this.#text.indexOf('`', this.#at + 1);
      if (end < 0) this.fail('a "`" is not closed');
      const text = this.#text.slice(this.#at + 1, end);
      this.#at = end + 1;
      return text;
    }
    const start = this.#at;
    while (this.#at < this.#text.length) {
      const rest = this.#text.slice(this.#at, this.#at + 2);
      const c = rest[0];
      if (rest === '&&' || rest === '||' || c === ')' || (inList && (c === ',' || c === ']')))
        break;
      if (c === '(' || c === '[' || c === '`')
        this.fail(`"${c}" in a value: put the value in backticks`);
      this.#at++;
    }
    const text = this.#text.slice(start, this.#at).trim();
    if (text === '') this.fail('a value is missing');
    return text;
  }
}

/** Parses a `filter_by` expression; 400 (naming `source`) when it is not one. */
export function parseFilter(text: string, source = 'filter_by'): FilterNode {
  if (text.length > MAX_FILTER_LENGTH) {
    throw invalidFilter(`at most ${MAX_FILTER_LENGTH} characters.`, source);
  }
  return new Parser(text, source).parse();
}
