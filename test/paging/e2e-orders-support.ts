/**
 * What the end-to-end walk suites share: the embedded v2 service seeded with 25,000 orders
 * (bursts of 300–600 orders sharing one created_at, bulk groups sharing one updated_at) behind
 * the gateway, both over real sockets; the ground truth read straight from the REST API; and a
 * walker that pages the gateway's `orders` connection to its end the way a client does,
 * checking every page on the way and every request that reached the service.
 *
 * Many walks advance in lockstep: each GraphQL request carries one aliased `orders` field per
 * walk still running (as many as the gateway's default limits admit in one operation), each
 * with its own cursor and arguments. Every field is planned and paged independently by the
 * gateway, exactly as it would be alone in a request; sharing the request only saves the
 * client-to-gateway round trips, which is what lets the whole matrix of 25,000-record walks
 * (pages of 1 included) run in the default suite. The gateway runs with its default limits
 * throughout: pages of 1,000 are what PAGING_MAX_FIRST promises.
 */
import { type FragmentDefinitionNode, getOperationAST, Kind, parse } from 'graphql';
import { expect } from 'vitest';
import { DEFAULT_QUERY_LIMITS } from '../../src/gateway/armor.ts';
import { costModelOptions, measureOperationCost } from '../../src/gateway/query-cost.ts';
import { schema } from '../../src/schema/index.ts';
import { DEFAULT_CALL_BUDGET } from '../../src/upstream/budget.ts';
import { type SendAttempt, sendUpstreamAttempt } from '../../src/upstream/client.ts';
import { type Stack, startStack } from '../support/harness.ts';

export const ORDERS = 25_000;
export const OFFSET_LIMIT = 10_000;

export type SortKey = 'created_at' | 'updated_at' | 'id';
const SORT_KEYS: readonly SortKey[] = ['created_at', 'updated_at', 'id'];
const SORT_ENUM: Record<SortKey, string> = {
  created_at: 'CREATED_AT',
  updated_at: 'UPDATED_AT',
  id: 'ID',
};

interface Key {
  id: string;
  created_at: string;
  updated_at: string;
}

export interface OrdersStack {
  stack: Stack;
  /** Every order's id and timestamps, as the REST API lists them. */
  all: Key[];
  /** The ground-truth ids of the whole connection in this order. */
  expected(sortKey: SortKey, reverse: boolean): string[];
  /** Largest page[offset] of any list request the service received so far. */
  maxOffset(): number;
  /** Order list requests the service received so far. */
  listCalls(): number;
  /** Of those, the keyset ones: a filter comparing `id` with the last id seen (gt/lt). */
  keysetCalls(): number;
  /**
   * Most upstream calls the gateway had in flight at once since the last call of this function
   * (counted around its real HTTP attempts).
   */
  takeMaxInFlight(): number;
  close(): Promise<void>;
}

/** Ground truth straight from the REST API, by the simplest possible id walk. */
async function readAllOrders(stack: Stack): Promise<Key[]> {
  const token = await stack.token();
  const keys: Key[] = [];
  let last = '';
  for (;;) {
    const params = new URLSearchParams({ 'page[limit]': '100', sort: 'id' });
    if (last !== '') params.set('filter', `gt(id,${last})`);
    const response = await fetch(`${stack.serviceUrl}/v2/orders?${params}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const body = (await response.json()) as {
      data: { id: string; meta: { timestamps: { created_at: string; updated_at: string } } }[];
    };
    for (const row of body.data) keys.push({ id: row.id, ...row.meta.timestamps });
    if (body.data.length < 100) break;
    last = keys[keys.length - 1]?.id as string;
  }
  return keys;
}

/** Starts the seeded stack; the gateway has every default limit. */
export async function startOrdersStack(): Promise<OrdersStack> {
  let inFlight = 0;
  let maxInFlight = 0;
  const send: SendAttempt = async (transport, request, context) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      return await sendUpstreamAttempt(transport, request, context);
    } finally {
      inFlight--;
    }
  };
  const stack = await startStack({
    seed: true,
    seedOptions: { orders: ORDERS },
    gateway: { send },
  });
  const all = await readAllOrders(stack);
  let maxOffset = 0;
  let listCalls = 0;
  let keysetCalls = 0;
  // Requests are folded into two figures as they are checked and then dropped: a walk in pages
  // of 1 makes hundreds of thousands of them.
  const drain = () => {
    for (const request of stack.upstreamRequests) {
      if (request.method !== 'GET' || !request.url.startsWith('/v2/orders?')) continue;
      listCalls++;
      const params = new URLSearchParams(request.url.slice(request.url.indexOf('?') + 1));
      maxOffset = Math.max(maxOffset, Number(params.get('page[offset]') ?? 0));
      if (/\b(gt|lt)\(id,/.test(params.get('filter') ?? '')) keysetCalls++;
    }
    stack.upstreamRequests.length = 0;
  };
  return {
    stack,
    all,
    expected(sortKey, reverse) {
      const sorted = [...all].sort((a, b) => {
        let c = 0;
        if (a[sortKey] !== b[sortKey]) c = a[sortKey] < b[sortKey] ? -1 : 1;
        else if (a.id !== b.id) c = a.id < b.id ? -1 : 1;
        return reverse ? -c : c;
      });
      return sorted.map((k) => k.id);
    },
    maxOffset() {
      drain();
      return maxOffset;
    },
    listCalls() {
      drain();
      return listCalls;
    },
    keysetCalls() {
      drain();
      return keysetCalls;
    },
    takeMaxInFlight() {
      const max = maxInFlight;
      maxInFlight = inFlight;
      return max;
    },
    close: () => stack.close(),
  };
}

export interface WalkSpec {
  sortKey: SortKey;
  reverse: boolean;
  size: number;
  /** last/before from the end instead of first/after from the start. */
  backward: boolean;
}

/** Every sort key × direction × way (forwards, backwards) at one page size: 12 walks. */
export function matrix(size: number): WalkSpec[] {
  const specs: WalkSpec[] = [];
  for (const sortKey of SORT_KEYS) {
    for (const reverse of [false, true]) {
      for (const backward of [false, true]) specs.push({ sortKey, reverse, size, backward });
    }
  }
  return specs;
}

export function walkName(spec: WalkSpec): string {
  const way = spec.backward ? 'last/before' : 'first/after';
  return `${spec.sortKey} ${spec.reverse ? 'desc' : 'asc'} ${way} ${spec.size}`;
}

interface Page {
  totalCount: number;
  pageInfo: {
    hasNextPage: boolean;
    hasPreviousPage: boolean;
    startCursor: string | null;
    endCursor: string | null;
  };
  edges: { cursor: string; node: { upstreamId: string } }[];
}

/** One document with an aliased `orders` field per walk, all arguments as variables. */
function walkDocument(count: number): string {
  const variables: string[] = [];
  const fields: string[] = [];
  for (let i = 0; i < count; i++) {
    variables.push(
      `$first${i}: Int, $after${i}: String, $last${i}: Int, $before${i}: String, ` +
        `$sortKey${i}: OrderSortKey, $reverse${i}: Boolean`,
    );
    fields.push(
      `w${i}: orders(first: $first${i}, after: $after${i}, last: $last${i}, ` +
        `before: $before${i}, sortKey: $sortKey${i}, reverse: $reverse${i}) { ...page }`,
    );
  }
  return `query Walks(${variables.join(', ')}) {\n  ${fields.join('\n  ')}\n}
fragment page on OrderConnection {
  totalCount
  pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  edges { cursor node { upstreamId } }
}`;
}

/**
 * Walks of pages of `size` one request may carry within the default limits: a page costs at
 * most ceil(size / 100) + 1 upstream calls (one more in the keyset region) of
 * DEFAULT_CALL_BUDGET, and the document's cost, as the gateway measures it, stays within
 * DEFAULT_QUERY_LIMITS.maxCost.
 */
function walksPerRequest(size: number): number {
  const withinCost = (count: number) => {
    const document = parse(walkDocument(count));
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const definition of document.definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) {
        fragments.set(definition.name.value, definition);
      }
    }
    const operation = getOperationAST(document);
    if (!operation) throw new Error('no operation');
    const { cost } = measureOperationCost(
      schema,
      operation,
      (name) => fragments.get(name),
      () => size,
      costModelOptions(),
    );
    return cost <= DEFAULT_QUERY_LIMITS.maxCost;
  };
  let count = Math.min(12, Math.floor(DEFAULT_CALL_BUDGET / (Math.ceil(size / 100) + 1)));
  while (count > 1 && !withinCost(count)) count--;
  return count;
}

/**
 * Walks every connection of `specs` to its end, in lockstep, and returns the ids of each in
 * connection order. Every page is checked as a client relies on it: the total is the whole
 * list, every page but the last is full, the flag in the walk's direction says whether more
 * follows, and the page's start/end cursors are those of its first/last edge.
 */
export async function walkAll(
  orders: OrdersStack,
  specs: readonly WalkSpec[],
): Promise<string[][]> {
  const pages: string[][][] = specs.map(() => []);
  const cursors: (string | null)[] = specs.map(() => null);
  let running = specs.map((_, i) => i);
  const perRequest = walksPerRequest(Math.max(...specs.map((spec) => spec.size)));
  const documents = new Map<number, string>();
  while (running.length > 0) {
    const still: number[] = [];
    for (let from = 0; from < running.length; from += perRequest) {
      const batch = running.slice(from, from + perRequest);
      let document = documents.get(batch.length);
      if (document === undefined) {
        document = walkDocument(batch.length);
        documents.set(batch.length, document);
      }
      const variables: Record<string, unknown> = {};
      batch.forEach((walk, slot) => {
        const spec = specs[walk] as WalkSpec;
        variables[`sortKey${slot}`] = SORT_ENUM[spec.sortKey];
        variables[`reverse${slot}`] = spec.reverse;
        if (spec.backward) {
          variables[`last${slot}`] = spec.size;
          variables[`before${slot}`] = cursors[walk];
        } else {
          variables[`first${slot}`] = spec.size;
          variables[`after${slot}`] = cursors[walk];
        }
      });
      const result = await orders.stack.graphql(document, variables);
      if (result.status !== 200 || result.body.errors) {
        throw new Error(
          `walk request failed: ${result.status} ${JSON.stringify(result.body.errors)}`,
        );
      }
      batch.forEach((walk, slot) => {
        const spec = specs[walk] as WalkSpec;
        const page = result.body.data[`w${slot}`] as Page;
        const ids = page.edges.map((e) => e.node.upstreamId);
        (pages[walk] as string[][]).push(ids);
        const more = spec.backward ? page.pageInfo.hasPreviousPage : page.pageInfo.hasNextPage;
        if (
          page.totalCount !== ORDERS ||
          (more && ids.length !== spec.size) ||
          page.pageInfo.startCursor !== (page.edges[0]?.cursor ?? null) ||
          page.pageInfo.endCursor !== (page.edges.at(-1)?.cursor ?? null)
        ) {
          throw new Error(
            `${walkName(spec)}: bad page ${pages[walk]?.length}: ${JSON.stringify({
              totalCount: page.totalCount,
              edges: ids.length,
              pageInfo: page.pageInfo,
            })}`,
          );
        }
        cursors[walk] = spec.backward ? page.pageInfo.startCursor : page.pageInfo.endCursor;
        if (more) still.push(walk);
      });
    }
    running = still;
  }
  return specs.map((spec, walk) => {
    const walked = pages[walk] as string[][];
    return (spec.backward ? [...walked].reverse() : walked).flat();
  });
}

/** Equal sequences, or a failure naming the first position where they differ. */
export function expectSequence(actual: readonly string[], expected: readonly string[]): void {
  let i = 0;
  while (i < actual.length && i < expected.length && actual[i] === expected[i]) i++;
  if (i === actual.length && i === expected.length) return;
  expect({ firstDifferenceAt: i, id: actual[i], length: actual.length }).toEqual({
    firstDifferenceAt: i,
    id: expected[i],
    length: expected.length,
  });
}
