/**
 * The static import graph of our TypeScript sources, for tests that hold the floors apart (the
 * commerce service imports nothing of the gateway; the gateway reaches into src/upstream/ only
 * through its front door). Every kind of import counts, type-only ones too: `import … from`,
 * `import '…'`, `export … from`, `import('…')` (also in type positions) and `require('…')`.
 *
 * The pinned TypeScript (7, the native compiler) has no parser callable from JavaScript, so a
 * small tokenizer reads the files: it skips comments, strings, template literals and regular
 * expressions, so text that only looks like an import is never taken for one, and an import
 * whose specifier is not a string literal is reported rather than missed.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';

export interface ImportEdge {
  /** The importing file, relative to the repository root (`src/main.ts`). */
  from: string;
  /** The specifier as written (`./app.ts`, `node:fs`, `graphql`). */
  specifier: string;
  /** A relative import: the imported file, relative to the repository root. */
  file?: string;
  /** A package import: its name (`graphql`, `@pothos/core`); node: builtins are `node:…`. */
  packageName?: string;
}

export interface ImportGraph {
  /** Every source file reached from the entries, entries included, relative to the root. */
  files: Set<string>;
  edges: ImportEdge[];
  /** Imports that cannot be followed statically (`import(name)`), as `file: text`. */
  unresolved: string[];
}

type Token =
  | { kind: 'name'; text: string }
  | { kind: 'string'; value: string }
  | { kind: 'punct'; text: string }
  /** Numbers, regular expressions, template literals: never part of an import. */
  | { kind: 'other' };

// After these a `/` starts a regular expression, not a division.
const REGEX_AFTER_WORD = new Set([
  'return',
  'typeof',
  'instanceof',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'case',
  'do',
  'else',
  'yield',
  'await',
]);

const isNameStart = (ch: string) => /[\p{ID_Start}$_]/u.test(ch);
const isNamePart = (ch: string) => /[\p{ID_Continue}$\u200c\u200d]/u.test(ch);

/** The tokens of a TypeScript/JavaScript source, without comments and whitespace. */
export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  // One entry per open `{`: true when it opened a template literal's `${`.
  const braces: boolean[] = [];
  let i = 0;

  const regexAllowed = (): boolean => {
    const last = tokens.at(-1);
    if (last === undefined) return true;
    if (last.kind === 'name') return REGEX_AFTER_WORD.has(last.text);
    if (last.kind === 'punct') return last.text !== ')' && last.text !== ']' && last.text !== '}';
    return false;
  };

  const readQuoted = (quote: string): string => {
    let value = '';
    i += 1;
    while (i < source.length && source[i] !== quote) {
      if (source[i] === '\\') {
        value += source.slice(i, i + 2);
        i += 2;
      } else {
        value += source[i];
        i += 1;
      }
    }
    i += 1;
    return value;
  };

  /** From just after a backtick or a template's closing `}`: to its end or its next `${`. */
  const readTemplate = () => {
    while (i < source.length) {
      const ch = source[i];
      if (ch === '\\') {
        i += 2;
      } else if (ch === '`') {
        i += 1;
        return;
      } else if (ch === '$' && source[i + 1] === '{') {
        i += 2;
        braces.push(true);
        return;
      } else {
        i += 1;
      }
    }
  };

  const readRegex = () => {
    let inClass = false;
    i += 1;
    while (i < source.length && source[i] !== '\n') {
      const ch = source[i];
      if (ch === '\\') i += 1;
      else if (ch === '[') inClass = true;
      else if (ch === ']') inClass = false;
      else if (ch === '/' && !inClass) break;
      i += 1;
    }
    i += 1;
    while (i < source.length && isNamePart(source[i] as string)) i += 1;
  };

  while (i < source.length) {
    const ch = source[i] as string;
    const next = source[i + 1];
    if (/\s/.test(ch)) {
      i += 1;
    } else if (ch === '/' && next === '/') {
      const end = source.indexOf('\n', i);
      i = end === -1 ? source.length : end;
    } else if (ch === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      i = end === -1 ? source.length : end + 2;
    } else if (ch === '/' && regexAllowed()) {
      readRegex();
      tokens.push({ kind: 'other' });
    } else if (ch === "'" || ch === '"') {
      tokens.push({ kind: 'string', value: readQuoted(ch) });
    } else if (ch === '`') {
      i += 1;
      readTemplate();
      tokens.push({ kind: 'other' });
    } else if (isNameStart(ch)) {
      const start = i;
      while (i < source.length && isNamePart(source[i] as string)) i += 1;
      tokens.push({ kind: 'name', text: source.slice(start, i) });
    } else if (/[0-9]/.test(ch) || (ch === '.' && next !== undefined && /[0-9]/.test(next))) {
      while (i < source.length && /[0-9a-zA-Z_.]/.test(source[i] as string)) i += 1;
      tokens.push({ kind: 'other' });
    } else if (ch === '{') {
      braces.push(false);
      tokens.push({ kind: 'punct', text: ch });
      i += 1;
    } else if (ch === '}') {
      i += 1;
      if (braces.pop() === true) {
        readTemplate();
        tokens.push({ kind: 'other' });
      } else {
        tokens.push({ kind: 'punct', text: ch });
      }
    } else {
      // Operators one character at a time: imports need only `*`, `,`, `(`, `)`, `.`, `;`, `=`.
      tokens.push({ kind: 'punct', text: ch });
      i += 1;
    }
  }
  return tokens;
}

/** Tokens of an import or export clause, between the keyword and `from`. */
function isClauseToken(token: Token): boolean {
  if (token.kind === 'name') return true;
  return token.kind === 'punct' && ['{', '}', '*', ','].includes(token.text);
}

/**
 * The specifiers a source imports, in order, and the text of imports that name no literal.
 * `import … from`, `import '…'`, `export … from`, `import('…')` and `require('…')` all count,
 * whether they import values or only types.
 */
export function importSpecifiers(source: string): { specifiers: string[]; dynamic: string[] } {
  const tokens = tokenize(source);
  const specifiers: string[] = [];
  const dynamic: string[] = [];
  const at = (index: number): Token | undefined => tokens[index];
  const isPunct = (token: Token | undefined, text: string) =>
    token?.kind === 'punct' && token.text === text;

  /** From the token after `import`/`export`: the specifier after the clause's `from`, if any. */
  const clauseSource = (start: number): string | undefined => {
    let index = start;
    while (index < tokens.length) {
      const token = tokens[index] as Token;
      const following = at(index + 1);
      if (token.kind === 'name' && token.text === 'from' && following?.kind === 'string') {
        return following.value;
      }
      if (!isClauseToken(token)) return undefined;
      index += 1;
    }
    return undefined;
  };

  for (let index = 0; index < tokens.length; index += 1) {
    const token = tokens[index] as Token;
    if (token.kind !== 'name' || isPunct(at(index - 1), '.')) continue;
    const following = at(index + 1);
    if (token.text === 'import' || token.text === 'require') {
      if (isPunct(following, '(')) {
        const argument = at(index + 2);
        if (argument?.kind === 'string' && isPunct(at(index + 3), ')')) {
          specifiers.push(argument.value);
        } else if (token.text === 'import') {
          dynamic.push(`${token.text}(…)`);
        }
        continue;
      }
    }
    if (token.text === 'import') {
      if (following?.kind === 'string') {
        specifiers.push(following.value);
        continue;
      }
      if (isPunct(following, '.')) continue; // import.meta
      const specifier = clauseSource(index + 1);
      if (specifier !== undefined) specifiers.push(specifier);
    } else if (token.text === 'export') {
      const specifier = clauseSource(index + 1);
      if (specifier !== undefined) specifiers.push(specifier);
    }
  }
  return { specifiers, dynamic };
}

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`; `node:fs` stays. */
export function packageNameOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] as string);
}

/**
 * Walks the static import graph from `entries` (paths relative to `root`), following relative
 * imports of source files; packages are recorded, not entered. A relative import that names no
 * file throws, so a misread import cannot shrink the graph unnoticed.
 */
export function walkImportGraph(entries: readonly string[], root = process.cwd()): ImportGraph {
  const graph: ImportGraph = { files: new Set(), edges: [], unresolved: [] };
  const queue = entries.map((entry) => relative(root, resolve(root, entry)));
  while (queue.length > 0) {
    const file = queue.shift() as string;
    if (graph.files.has(file)) continue;
    graph.files.add(file);
    const { specifiers, dynamic } = importSpecifiers(readFileSync(resolve(root, file), 'utf8'));
    for (const text of dynamic) graph.unresolved.push(`${file}: ${text}`);
    for (const specifier of specifiers) {
      if (specifier.startsWith('.')) {
        // The sources import with their .ts extension; a .js specifier means the .ts beside it.
        const target = relative(
          root,
          resolve(root, dirname(file), specifier.replace(/\.js$/, '.ts')),
        );
        if (!existsSync(resolve(root, target))) {
          throw new Error(`${file}: "${specifier}" names no file (${target})`);
        }
        graph.edges.push({ from: file, specifier, file: target });
        if (/\.[cm]?ts$/.test(target)) queue.push(target);
      } else {
        graph.edges.push({ from: file, specifier, packageName: packageNameOf(specifier) });
      }
    }
  }
  return graph;
}

/**
 * The import cycles of a graph: its strongly connected components of more than one file (and a
 * file that imports itself), each sorted, largest first. Type-only imports count: a cycle of
 * types still ties the files' meanings together, and the walker does not tell them apart.
 */
export function importCycles(graph: Pick<ImportGraph, 'edges'>): string[][] {
  const next = new Map<string, string[]>();
  for (const edge of graph.edges) {
    if (edge.file === undefined) continue;
    const targets = next.get(edge.from) ?? [];
    targets.push(edge.file);
    next.set(edge.from, targets);
  }
  // Tarjan's algorithm, iterative so a long chain of imports cannot overflow the stack.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let counter = 0;
  for (const start of next.keys()) {
    if (index.has(start)) continue;
    const work: { file: string; at: number }[] = [{ file: start, at: 0 }];
    index.set(start, counter);
    low.set(start, counter);
    counter += 1;
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1] as { file: string; at: number };
      const targets = next.get(frame.file) ?? [];
      if (frame.at < targets.length) {
        const target = targets[frame.at] as string;
        frame.at += 1;
        if (!index.has(target)) {
          index.set(target, counter);
          low.set(target, counter);
          counter += 1;
          stack.push(target);
          onStack.add(target);
          work.push({ file: target, at: 0 });
        } else if (onStack.has(target)) {
          low.set(frame.file, Math.min(low.get(frame.file) as number, index.get(target) as number));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined) {
        low.set(
          parent.file,
          Math.min(low.get(parent.file) as number, low.get(frame.file) as number),
        );
      }
      if (low.get(frame.file) === index.get(frame.file)) {
        const component: string[] = [];
        let file: string;
        do {
          file = stack.pop() as string;
          onStack.delete(file);
          component.push(file);
        } while (file !== frame.file);
        const selfImport = (next.get(frame.file) ?? []).includes(frame.file);
        if (component.length > 1 || selfImport) cycles.push(component.sort());
      }
    }
  }
  return cycles.sort(
    (a, b) => b.length - a.length || (a[0] as string).localeCompare(b[0] as string),
  );
}
