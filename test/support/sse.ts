/**
 * A GraphQL-over-SSE subscriber for tests, over a real socket: POSTs (or GETs) the operation with
 * `Accept: text/event-stream` and parses the frames as a browser would (`id:`, `event:`, `data:`),
 * so a test reads what a client receives, frame ids included.
 */
export interface SseFrame {
  id: string | undefined;
  event: string;
  data: any;
}

export interface SseSubscription {
  status: number;
  headers: Headers;
  /** The next `next` frame within `ms`, or undefined when none came (or the stream completed). */
  next(ms?: number): Promise<SseFrame | undefined>;
  /** Every frame received so far, `complete` included. */
  frames: SseFrame[];
  close(): void;
}

export async function subscribe(
  url: string,
  query: string,
  options: {
    variables?: Record<string, unknown>;
    token?: string;
    headers?: Record<string, string>;
  } = {},
): Promise<SseSubscription> {
  const controller = new AbortController();
  const response = await fetch(url, {
    method: 'POST',
    signal: controller.signal,
    headers: {
      accept: 'text/event-stream',
      'content-type': 'application/json',
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...options.headers,
    },
    body: JSON.stringify({ query, variables: options.variables ?? {} }),
  });
  const frames: SseFrame[] = [];
  const pending: SseFrame[] = [];
  let waiter: (() => void) | undefined;
  let ended = false;
  const wake = () => {
    const w = waiter;
    waiter = undefined;
    w?.();
  };
  (async () => {
    if (response.body === null) return;
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let id: string | undefined;
          let event = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) continue;
            const at = line.indexOf(':');
            const field = at < 0 ? line : line.slice(0, at);
            const value = at < 0 ? '' : line.slice(at + 1).replace(/^ /, '');
            if (field === 'id') id = value;
            else if (field === 'event') event = value;
            else if (field === 'data') data.push(value);
          }
          if (data.length === 0 && id === undefined && event === 'message') continue;
          const text = data.join('\n');
          const frame = { id, event, data: text === '' ? null : JSON.parse(text) };
          frames.push(frame);
          pending.push(frame);
          wake();
        }
      }
    } catch {
      // aborted by close()
    } finally {
      ended = true;
      wake();
    }
  })();
  return {
    status: response.status,
    headers: response.headers,
    frames,
    async next(ms = 5_000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const frame = pending.shift();
        if (frame !== undefined) {
          if (frame.event === 'complete') return undefined;
          return frame;
        }
        if (ended || Date.now() >= deadline) return undefined;
        await new Promise<void>((resolve) => {
          waiter = resolve;
          setTimeout(resolve, Math.max(1, deadline - Date.now()));
        });
      }
    },
    close() {
      controller.abort();
    },
  };
}
