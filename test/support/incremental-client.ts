/**
 * A client of answers in parts (`@defer`/`@stream`), as a browser or Apollo's client reads them:
 * multipart/mixed parts or text/event-stream `next` events, each parsed as it arrives (with the
 * moment it arrived), and the parts merged into the one answer they make (graphql 17's format:
 * `pending` ids with their paths, `incremental` data or items, `completed`).
 */

export interface Part {
  /** When the part was read off the socket (Date.now()). */
  at: number;
  body: Record<string, any>;
}

export interface PartsAnswer {
  status: number;
  contentType: string | null;
  parts: Part[];
}

export interface PartsRequest {
  url: string;
  query: string;
  variables?: Record<string, unknown>;
  token: string;
  /** Undefined: no Accept header (Yoga answers multipart/mixed). */
  accept:
    | 'multipart/mixed'
    | 'multipart/mixed;deferSpec=20220824'
    | 'text/event-stream'
    | undefined;
  /** Called with each part as it arrives; answering false aborts the request (client gone). */
  onPart?: (part: Part) => boolean | undefined;
}

/** Splits what arrived so far into complete parts; the rest waits for more bytes. */
function takeParts(buffer: string, accept: PartsRequest['accept']): [string[], string] {
  const found: string[] = [];
  if (accept === 'text/event-stream') {
    let rest = buffer;
    for (let end = rest.indexOf('\n\n'); end >= 0; end = rest.indexOf('\n\n')) {
      const event = rest.slice(0, end);
      rest = rest.slice(end + 2);
      const lines = event.split('\n');
      if (!lines.includes('event: next')) continue;
      const data = lines.filter((l) => l.startsWith('data: ')).map((l) => l.slice(6));
      found.push(data.join('\n'));
    }
    return [found, rest];
  }
  // multipart/mixed; boundary="-": parts between "\r\n---" delimiters, headers then JSON.
  const delimiter = '\r\n---';
  let rest = buffer;
  for (;;) {
    const open = rest.indexOf(delimiter);
    if (open < 0) break;
    const close = rest.indexOf(delimiter, open + delimiter.length);
    if (close < 0) break;
    const part = rest.slice(open + delimiter.length, close);
    rest = rest.slice(close);
    const bodyAt = part.indexOf('\r\n\r\n');
    if (bodyAt >= 0) found.push(part.slice(bodyAt + 4));
  }
  return [found, rest];
}

export async function requestParts(request: PartsRequest): Promise<PartsAnswer> {
  const controller = new AbortController();
  const response = await fetch(request.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(request.accept === undefined ? {} : { accept: request.accept }),
      authorization: `Bearer ${request.token}`,
    },
    body: JSON.stringify({ query: request.query, variables: request.variables }),
    signal: controller.signal,
  });
  const parts: Part[] = [];
  const reader = response.body?.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    while (reader) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      const [texts, rest] = takeParts(buffer, request.accept);
      buffer = rest;
      for (const text of texts) {
        const part = { at: Date.now(), body: JSON.parse(text) as Record<string, any> };
        parts.push(part);
        if (request.onPart?.(part) === false) {
          controller.abort();
          return {
            status: response.status,
            contentType: response.headers.get('content-type'),
            parts,
          };
        }
      }
    }
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  }
  return { status: response.status, contentType: response.headers.get('content-type'), parts };
}

type Json = Record<string, any>;

function at(root: Json, path: readonly (string | number)[]): any {
  let node: any = root;
  for (const key of path) node = node?.[key];
  return node;
}

function mergeInto(target: Json, source: Json): void {
  for (const [key, value] of Object.entries(source)) {
    const existing = target[key];
    if (
      existing !== null &&
      typeof existing === 'object' &&
      !Array.isArray(existing) &&
      value !== null &&
      typeof value === 'object' &&
      !Array.isArray(value)
    ) {
      mergeInto(existing, value);
    } else {
      target[key] = value;
    }
  }
}

/** The one answer the parts make: data merged, errors gathered, `hasNext` false at the end. */
export function mergeParts(parts: readonly Part[]): {
  data: Json | null;
  errors: Json[];
  done: boolean;
} {
  const first = parts[0]?.body;
  if (first === undefined) throw new Error('no part arrived');
  const data = structuredClone(first.data ?? null) as Json | null;
  const errors: Json[] = [...(first.errors ?? [])];
  const paths = new Map<string, (string | number)[]>();
  const note = (pending: Json[] | undefined) => {
    for (const entry of pending ?? []) paths.set(entry.id, entry.path);
  };
  note(first.pending);
  let done = first.hasNext !== true;
  for (const { body } of parts.slice(1)) {
    note(body.pending);
    for (const entry of body.incremental ?? []) {
      // The 2022 format labels a part by its path (for items: the first item's), not by an id.
      const legacy = entry.id === undefined;
      const path = legacy
        ? entry.items !== undefined
          ? entry.path.slice(0, -1)
          : entry.path
        : [...(paths.get(entry.id) ?? []), ...(entry.subPath ?? [])];
      if (data === null) continue;
      if (entry.items !== undefined) {
        (at(data, path) as unknown[]).push(...entry.items);
      } else if (entry.data !== undefined) {
        mergeInto(at(data, path), entry.data);
      }
      errors.push(...(entry.errors ?? []));
    }
    for (const entry of body.completed ?? []) errors.push(...(entry.errors ?? []));
    done = body.hasNext === false;
  }
  return { data, errors, done };
}
