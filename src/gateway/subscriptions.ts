/**
 * Subscriptions as the gateway runs them (the fields: src/schema/subscriptions.ts). Yoga's own
 * executor would run every event of a subscription in the one context of the request that opened
 * it: one deadline, one call budget and one set of caches for as long as the client stays, so
 * the second event would be served from the first one's cache and everything after the
 * operation deadline would be aborted. Here each event runs in the session its subscriber's read
 * was made in (a fork of the request's: src/upstream/session.ts), finished when its answer is.
 *
 * Each event's result is written with the SSE `id:` of its event (a result's own `stringify`,
 * which Yoga's SSE writer calls for the frame's data line), so a browser's EventSource sends
 * `Last-Event-ID` when it reconnects, and the subscription resumes after it.
 */
import * as graphqlModule from 'graphql';
import {
  createSourceEventStream,
  type ExecutionArgs,
  type ExecutionResult,
  execute,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { deliveryEventId, deliverySession } from '../schema/subscription-feed.ts';

const isAsyncIterable = (value: unknown): value is AsyncIterable<unknown> =>
  typeof value === 'object' && value !== null && Symbol.asyncIterator in value;

/**
 * graphql 17's pieces of `subscribe`, read off the module: the package allows graphql 16
 * (peerDependencies), which has none of them, and a named import of what it lacks fails the
 * module's loading. With 16, the same is made of what 16 has (./subscribe16 below).
 */
const graphql17 = graphqlModule as Partial<
  Pick<
    typeof graphqlModule,
    'executeSubscriptionEvent' | 'mapSourceToResponseEvent' | 'validateSubscriptionArgs'
  >
>;

/**
 * One event: executed in its delivery's session, its result framed with the event's id. `run`
 * executes the operation for the event's root value with the context given.
 */
async function executeEvent(
  rootValue: unknown,
  contextValue: unknown,
  run: (contextValue: unknown) => ExecutionResult | Promise<ExecutionResult>,
): Promise<ExecutionResult> {
  const session = deliverySession(rootValue);
  const id = deliveryEventId(rootValue);
  const context =
    session === undefined ? contextValue : { ...(contextValue as object), ...session };
  try {
    const result = await run(context);
    if (id === undefined) return result;
    // A field of the data line's own: JSON never holds a raw newline, so this ends the data
    // line and adds the event's `id:` to the same SSE event.
    const framed = result as ExecutionResult & { stringify?: (value: unknown) => string };
    framed.stringify = (value) => `${JSON.stringify(value)}\nid: ${id}`;
    return framed;
  } finally {
    session?.finish();
  }
}

/** graphql-js's subscribe, with the source stream's events executed by executeEvent. */
async function subscribeWithEventSessions(args: ExecutionArgs) {
  const { executeSubscriptionEvent, mapSourceToResponseEvent, validateSubscriptionArgs } =
    graphql17;
  if (!executeSubscriptionEvent || !mapSourceToResponseEvent || !validateSubscriptionArgs) {
    return subscribe16(args);
  }
  const validated = validateSubscriptionArgs(args);
  if (!('schema' in validated)) return { errors: validated };
  const stream = await createSourceEventStream(validated);
  if (!isAsyncIterable(stream)) return stream;
  return mapSourceToResponseEvent(validated, stream, (event) =>
    executeEvent(event.rootValue, event.contextValue, (contextValue) =>
      executeSubscriptionEvent({ ...event, contextValue }),
    ),
  );
}

/** graphql 16's subscribe made the same way: each event executed with the event as its root. */
async function subscribe16(args: ExecutionArgs) {
  const stream = await (createSourceEventStream as unknown as (a: ExecutionArgs) => unknown)(args);
  if (!isAsyncIterable(stream)) return stream;
  return (async function* events() {
    for await (const payload of stream) {
      yield await executeEvent(
        payload,
        args.contextValue,
        (contextValue) => execute({ ...args, rootValue: payload, contextValue }) as ExecutionResult,
      );
    }
  })();
}

/**
 * A stream asked for without a media type that carries one (a subscription POSTed with only
 * `Accept: application/json`): Yoga would answer a bare 406 with no body; this one says what to
 * send, with a code, as every other refusal of a request does.
 */
function notAcceptable(): Response {
  const body = {
    errors: [
      {
        message:
          'This operation answers a stream of events: send Accept: text/event-stream (GraphQL over SSE)',
        extensions: { code: 'BAD_REQUEST' },
      },
    ],
  };
  return new Response(JSON.stringify(body), {
    status: 406,
    headers: { 'content-type': 'application/json; charset=utf-8', accept: 'text/event-stream' },
  });
}

export const subscriptionsPlugin: Plugin = {
  onSubscribe({ setSubscribeFn }) {
    setSubscribeFn(subscribeWithEventSessions as never);
  },
  onResponse({ response }) {
    // A stream of one subscriber's reads, its token perhaps in the URL (RFC 6750 §2.3 asks for
    // `private`): no cache anywhere keeps it.
    if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      // Deleted first: the adapter's headers keep Yoga's `Cache-Control: no-cache` beside a set.
      response.headers.delete('cache-control');
      response.headers.set('cache-control', 'no-store, private');
    }
  },
  onResultProcess({ result, resultProcessor, setResultProcessor }) {
    if (resultProcessor === undefined && isAsyncIterable(result)) {
      // The stream is never read: end it, so its subscription lets go of the bus.
      void (result as AsyncIterable<unknown>)[Symbol.asyncIterator]().return?.();
      setResultProcessor(notAcceptable, 'application/json');
    }
  },
};
