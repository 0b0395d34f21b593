/**
 * The two pieces of a page handed out in parts (./stream.ts, ./offset.ts): the feed its edges
 * are read from while later upstream pages are still out, and the pump that fetches those pages
 * a few at a time and hands them over in list order as they come in.
 */
import type { Connection, Edge, StreamedConnection } from './plan.ts';

/** A promise a field may never read: its failure is the edges' to report, not unhandled. */
export function quiet<V>(promise: Promise<V>): Promise<V> {
  promise.catch(() => undefined);
  return promise;
}

/** A connection fetched whole, handed out as one answered in parts. */
export function wholeInParts<T>(connection: Connection<T>): StreamedConnection<T> {
  return {
    edges: EdgeFeed.of<Edge<T>>(connection.edges),
    pageInfo: Promise.resolve(connection.pageInfo),
    totalCount: connection.totalCount,
    pinnedAt: connection.pinnedAt,
  };
}

/**
 * Edges handed out as they arrive, to any number of readers (`edges` and `nodes` of one
 * connection each read it from the start). A reader that stops early only stops reading: the
 * walk's upstream calls end with the operation (the client gone aborts them, src/upstream/
 * session.ts), since another reader (a deferred fragment) may still come for the rest.
 */
export class EdgeFeed<E> implements AsyncIterable<E> {
  readonly #items: E[] = [];
  #done = false;
  #failure: { error: unknown } | undefined;
  #waiting: (() => void)[] = [];

  /** A feed that already holds its whole page. */
  static of<E>(items: readonly E[]): EdgeFeed<E> {
    const feed = new EdgeFeed<E>();
    feed.push(items);
    feed.end();
    return feed;
  }

  push(items: readonly E[]): void {
    if (items.length === 0) return;
    for (const item of items) this.#items.push(item);
    this.#wake();
  }

  end(): void {
    this.#done = true;
    this.#wake();
  }

  fail(error: unknown): void {
    this.#failure ??= { error };
    this.#wake();
  }

  /** Edges handed out so far. */
  get length(): number {
    return this.#items.length;
  }

  first(): E | undefined {
    return this.#items[0];
  }

  last(): E | undefined {
    return this.#items[this.#items.length - 1];
  }

  #wake(): void {
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const resume of waiting) resume();
  }

  [Symbol.asyncIterator](): AsyncIterator<E> {
    let index = 0;
    let stopped = false;
    const finished = { value: undefined, done: true } as const;
    return {
      next: async (): Promise<IteratorResult<E>> => {
        while (!stopped) {
          if (index < this.#items.length) {
            return { value: this.#items[index++] as E, done: false };
          }
          if (this.#failure !== undefined) throw this.#failure.error;
          if (this.#done) return finished;
          await new Promise<void>((resume) => this.#waiting.push(resume));
        }
        return finished;
      },
      return: async (): Promise<IteratorResult<E>> => {
        stopped = true;
        return finished;
      },
    };
  }
}

/**
 * Fetches `count` pages with at most `concurrency` in flight and hands each to `take` in list
 * order as soon as it and every page before it are in. Stops (no further call starts) when
 * `take` answers false or a page fails; the failure is thrown. Calls already out then settle
 * unread.
 */
export async function pagesInOrder<P>(
  count: number,
  concurrency: number,
  fetch: (index: number) => Promise<P>,
  take: (page: P, index: number) => boolean | Promise<boolean>,
): Promise<void> {
  const pages: Promise<P>[] = [];
  let active = 0;
  let stopped = false;
  const settle = () => {
    active -= 1;
    pump();
  };
  const pump = () => {
    while (!stopped && pages.length < count && active < concurrency) {
      active += 1;
      const page = fetch(pages.length);
      pages.push(page);
      page.then(settle, settle);
    }
  };
  pump();
  try {
    for (let index = 0; index < count; index++) {
      const page = pages[index];
      if (page === undefined) throw new Error(`page ${index} was never asked for`);
      if (!(await take(await page, index))) return;
    }
  } finally {
    stopped = true;
    // Pages fetched ahead and never read must not become unhandled rejections.
    for (const page of pages) page.catch(() => undefined);
  }
}
