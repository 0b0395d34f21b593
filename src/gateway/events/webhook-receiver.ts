/**
 * The store's webhooks, received on the gateway's own listener (`POST /webhooks/commerce`) and
 * published to the event bus (./bus.ts) as ids only. The integration's secret header
 * (`X-Moltin-Secret-Key`, as the upstream's deliverer sends it) is compared in constant time and
 * never logged nor echoed; the body is bounded and judged; an event the subscriptions do not
 * follow is acknowledged (2xx) and dropped, so the upstream does not retry it. A delivery the
 * upstream repeats (at least once: the same webhook id, a later attempt) is published once.
 *
 * It is a Yoga plugin answering in `onRequest`, before anything GraphQL runs; the node:http fast
 * path (../fast-path.ts) takes only POSTs to the GraphQL endpoint, so these reach Yoga.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Plugin } from 'graphql-yoga';
import type { EventBus, StoreEvent, StoreEventSubject } from './bus.ts';

/** Where the receiver listens by default. */
export const DEFAULT_WEBHOOK_PATH = '/webhooks/commerce';
/** The largest webhook body read, bytes: a cart with every line fits many times over. */
export const MAX_WEBHOOK_BYTES = 64 * 1024;
/** The header the upstream's integration sends its secret in. */
export const WEBHOOK_SECRET_HEADER = 'x-moltin-secret-key';
/** The events the subscriptions follow (what an integration should observe). */
export const FOLLOWED_EVENTS = [
  'cart.updated',
  'order.created',
  'order.updated',
  'stock-transaction.created',
  'catalog-release.created',
] as const;

/** Webhook ids remembered to publish a repeated delivery once. */
const REMEMBERED_DELIVERIES = 4096;

export interface WebhookReceiverOptions {
  bus: EventBus;
  /** The integration's secret (`WEBHOOK_SECRET`); required, the receiver is off without it. */
  secret: string;
  /** Default DEFAULT_WEBHOOK_PATH. */
  path?: string;
  /** Told of each refusal (never with the secret or the body). */
  log?: (message: string, fields: Record<string, unknown>) => void;
}

/** The refusal of one webhook, with its status and stable code. */
export class WebhookRefusal extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function idAt(record: Record<string, unknown>, key: string, what: string): string {
  const value = record[key];
  if (typeof value !== 'string' || value === '' || value.length > 128) {
    throw new WebhookRefusal(400, 'BAD_REQUEST', `The ${what} event carries no ${key}`);
  }
  return value;
}

/**
 * The event a webhook body announces: `undefined` for one the subscriptions do not follow; a
 * WebhookRefusal (400) for a body that is not a webhook of the upstream's form.
 */
export function readWebhook(
  body: unknown,
): { webhookId: string | undefined; event: Omit<StoreEvent, 'id' | 'receivedAt'> } | undefined {
  if (!isObject(body)) {
    throw new WebhookRefusal(400, 'BAD_REQUEST', 'The webhook body must be a JSON object');
  }
  const type = body.triggered_by;
  if (typeof type !== 'string' || type === '') {
    throw new WebhookRefusal(400, 'BAD_REQUEST', 'The webhook body has no `triggered_by` event');
  }
  if (!(FOLLOWED_EVENTS as readonly string[]).includes(type)) return undefined;
  const payload = body.payload;
  const data = isObject(payload) ? payload.data : undefined;
  if (!isObject(data)) {
    throw new WebhookRefusal(400, 'BAD_REQUEST', `The ${type} event has no \`payload.data\``);
  }
  let subject: StoreEventSubject;
  switch (type) {
    case 'cart.updated':
      subject = { cartId: idAt(data, 'id', type) };
      break;
    case 'order.created':
    case 'order.updated':
      subject = { orderId: idAt(data, 'id', type) };
      break;
    case 'stock-transaction.created': {
      // The basic form carries product_id beside the id, the multi-location form in attributes.
      const attributes = isObject(data.attributes) ? data.attributes : {};
      const holder = typeof data.product_id === 'string' ? data : attributes;
      subject = { productIds: [idAt(holder, 'product_id', type)] };
      break;
    }
    default: {
      const attributes = isObject(data.attributes) ? data.attributes : {};
      subject = {
        releaseId: idAt(data, 'id', type),
        catalogId: idAt(attributes, 'catalog_id', type),
      };
    }
  }
  const webhookId = typeof body.id === 'string' && body.id.length <= 128 ? body.id : undefined;
  return { webhookId, event: { type, subject } };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** At most `limit` bytes of the body, or a 413 refusal. */
async function readBounded(request: Request, limit: number): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limit) {
    throw new WebhookRefusal(
      413,
      'REQUEST_ENTITY_TOO_LARGE',
      `A webhook body is at most ${limit} bytes`,
    );
  }
  if (request.body === null) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw new WebhookRefusal(
        413,
        'REQUEST_ENTITY_TOO_LARGE',
        `A webhook body is at most ${limit} bytes`,
      );
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function answer(status: number, body: Record<string, unknown>): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
  });
}

function refusalAnswer(refusal: WebhookRefusal): Response {
  return answer(refusal.status, {
    errors: [{ message: refusal.message, extensions: { code: refusal.code } }],
  });
}

export function webhookReceiverPlugin(options: WebhookReceiverOptions): Plugin {
  const path = options.path ?? DEFAULT_WEBHOOK_PATH;
  const expected = digest(options.secret);
  const seen = new Set<string>();

  async function receive(request: Request): Promise<Response> {
    if (request.method !== 'POST') {
      return new Response(null, { status: 405, headers: { allow: 'POST' } });
    }
    const given = request.headers.get(WEBHOOK_SECRET_HEADER);
    if (given === null || given === '') {
      throw new WebhookRefusal(
        401,
        'UNAUTHENTICATED',
        'Send the integration’s secret in X-Moltin-Secret-Key',
      );
    }
    // Digests of equal length: the comparison takes as long whatever was sent.
    if (!timingSafeEqual(digest(given), expected)) {
      throw new WebhookRefusal(403, 'FORBIDDEN', 'The X-Moltin-Secret-Key does not match');
    }
    const type = (request.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/json') {
      throw new WebhookRefusal(
        415,
        'UNSUPPORTED_MEDIA_TYPE',
        'Send the webhook as application/json',
      );
    }
    const text = await readBounded(request, MAX_WEBHOOK_BYTES);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new WebhookRefusal(400, 'BAD_REQUEST', 'The webhook body is not valid JSON');
    }
    const read = readWebhook(body);
    if (read === undefined) return answer(202, { ignored: true });
    if (read.webhookId !== undefined && seen.has(read.webhookId)) {
      return answer(200, { duplicate: true });
    }
    let published: StoreEvent;
    try {
      // The delivery's id goes along: a repeat routed to another replica is published once too.
      published = await options.bus.publish(
        { ...read.event, receivedAt: new Date().toISOString() },
        { deliveryId: read.webhookId },
      );
    } catch {
      // The bus is closed (the gateway drains) or unreachable: the upstream delivers again later,
      // to this replica or another.
      return new Response(
        JSON.stringify({
          errors: [{ message: 'The event could not be published: deliver it again later' }],
        }),
        { status: 503, headers: { 'content-type': 'application/json', 'retry-after': '5' } },
      );
    }
    if (read.webhookId !== undefined) {
      seen.add(read.webhookId);
      // Oldest first out: a Set iterates in insertion order.
      if (seen.size > REMEMBERED_DELIVERIES) {
        const oldest = seen.values().next().value;
        if (oldest !== undefined) seen.delete(oldest);
      }
    }
    return answer(200, { eventId: published.id });
  }

  return {
    onRequest({ request, url, endResponse }) {
      if (url.pathname !== path) return;
      return receive(request).then(endResponse, (error: unknown) => {
        if (!(error instanceof WebhookRefusal)) throw error;
        options.log?.('webhook refused', { status: error.status, code: error.code });
        endResponse(refusalAnswer(error));
      });
    },
  };
}
