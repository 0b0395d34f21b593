/**
 * Highlighting, as production's hits carry it: `highlight` (the document's shape, each matched
 * text field `{snippet, matched_tokens}`, plus `value`, the whole field, for the fields
 * `highlight_full_fields` names) and `highlights` (the same as a list, `field` naming each).
 * Matched words are wrapped in `<mark>…</mark>`; the text around them is HTML-escaped, so a
 * storefront can render a snippet as HTML (the reference storefront does).
 *
 * A word of the field matches a query word when it starts with it (the prefix) or when both
 * reduce to the same stem by a light English suffix rule (s, es, ing, ed, er, ly): the index's
 * porter stemmer decides what matches; this only decides what is marked.
 * A snippet is the field's text when it is at most 30 words, else 30 words around the first
 * match, with "…" where text was cut.
 */

const SNIPPET_WORDS = 30;

/** The text fields a hit may highlight, as `attributes.<name>`. */
export const HIGHLIGHT_FIELDS = ['name', 'description', 'sku', 'slug'] as const;

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);

function stem(word: string): string {
  for (const suffix of ['ing', 'es', 'ed', 'er', 'ly', 's']) {
    if (word.length > suffix.length + 2 && word.endsWith(suffix)) {
      return word.slice(0, -suffix.length);
    }
  }
  return word;
}

export interface FieldHighlight {
  snippet: string;
  matched_tokens: string[];
  value?: string;
}

/** The field's highlight for the query words, or undefined when no word of it matches. */
export function highlightText(
  text: string,
  words: readonly string[],
  full: boolean,
): FieldHighlight | undefined {
  if (words.length === 0 || text === '') return undefined;
  const stems = words.map(stem);
  const pieces: { text: string; mark: boolean }[] = [];
  const matched: string[] = [];
  let last = 0;
  for (const m of text.matchAll(/[\p{L}\p{N}]+/gu)) {
    const word = m[0];
    const lower = word.toLowerCase();
    const hit = words.some((w, i) => lower.startsWith(w) || stem(lower) === stems[i]);
    if (!hit) continue;
    const at = m.index;
    if (at > last) pieces.push({ text: text.slice(last, at), mark: false });
    pieces.push({ text: word, mark: true });
    if (!matched.includes(word)) matched.push(word);
    last = at + word.length;
  }
  if (matched.length === 0) return undefined;
  if (last < text.length) pieces.push({ text: text.slice(last), mark: false });
  const render = (list: typeof pieces) =>
    list.map((p) => (p.mark ? `<mark>${escapeHtml(p.text)}</mark>` : escapeHtml(p.text))).join('');
  const value = render(pieces);
  const wordCount = (text.match(/\S+/g) ?? []).length;
  let snippet = value;
  if (wordCount > SNIPPET_WORDS) {
    // Cut by words of the plain text around the first mark.
    const first = pieces.findIndex((p) => p.mark);
    const before = pieces
      .slice(0, first)
      .map((p) => p.text)
      .join('');
    const beforeWords = before.split(/\s+/).filter((w) => w !== '');
    const keepBefore = beforeWords.slice(-Math.floor(SNIPPET_WORDS / 3));
    const after = pieces.slice(first);
    const afterText = render(after);
    const afterWords = afterText.split(/\s+/);
    const tail = afterWords.slice(0, SNIPPET_WORDS - keepBefore.length);
    snippet =
      (keepBefore.length < beforeWords.length ? '… ' : '') +
      [...keepBefore.map(escapeHtml), ...tail].join(' ') +
      (tail.length < afterWords.length ? ' …' : '');
  }
  return { snippet, matched_tokens: matched, ...(full ? { value } : {}) };
}

export interface HitHighlights {
  highlight: Record<string, unknown>;
  highlights: ({ field: string } & FieldHighlight)[];
}

/** Highlights of a product's text fields (its presented `attributes`). */
export function highlightProduct(
  attributes: Record<string, unknown>,
  words: readonly string[],
  fullFields: ReadonlySet<string>,
): HitHighlights {
  const nested: Record<string, FieldHighlight> = {};
  const list: ({ field: string } & FieldHighlight)[] = [];
  for (const name of HIGHLIGHT_FIELDS) {
    const text = attributes[name];
    if (typeof text !== 'string') continue;
    const field = `attributes.${name}`;
    const found = highlightText(text, words, fullFields.has(field) || fullFields.has(name));
    if (found === undefined) continue;
    nested[name] = found;
    list.push({ field, ...found });
  }
  return {
    highlight: Object.keys(nested).length > 0 ? { attributes: nested } : {},
    highlights: list,
  };
}
