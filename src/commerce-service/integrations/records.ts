/**
 * Integrations as stored and as the API shows them, and the judge of their request bodies.
 * Secrets (`secret_key`, `aws_secret_access_key`, `password`) are kept for delivery and never
 * shown: reads omit them (production masks them), and an update that leaves one out keeps it.
 */
import { badRequest } from '../errors.ts';
import {
  checkType,
  type JsonObject,
  optionalBoolean,
  optionalEnum,
  optionalStringList,
  optionalText,
  rejectUnknownKeys,
  requireData,
  requireObject,
  requireText,
} from '../request-body.ts';
import { isKnownEvent, KNOWN_EVENTS } from './events.ts';

export interface IntegrationRow {
  id: string;
  store_id: string;
  name: string;
  description: string | null;
  enabled: number;
  integration_type: IntegrationType;
  observes: string;
  configuration: string;
  created_at: string;
  updated_at: string;
}

export interface IntegrationJobRow {
  id: string;
  store_id: string;
  integration_id: string;
  triggered_by: string;
  payload: string;
  status: string;
  attempts: number;
  next_attempt_at: number;
  created_at: string;
  updated_at: string;
}

export interface IntegrationLogRow {
  id: string;
  store_id: string;
  integration_id: string;
  job_id: string;
  attempt: number;
  succeeded: number;
  status_code: number | null;
  body: string | null;
  error_detail: string | null;
  processing_time: number;
  created_at: string;
  updated_at: string;
}

export const INTEGRATION_TYPES = ['webhook', 'aws_sqs', 'stomp'] as const;
export type IntegrationType = (typeof INTEGRATION_TYPES)[number];

const SECRETS = new Set(['secret_key', 'aws_secret_access_key', 'password']);

/** The configuration keys of each type; `url` is required for all. */
const CONFIGURATION_KEYS: Record<IntegrationType, readonly string[]> = {
  webhook: ['url', 'secret_key'],
  aws_sqs: ['url', 'aws_access_key_id', 'aws_secret_access_key', 'region'],
  stomp: ['url', 'username', 'password', 'destination', 'addresses'],
};

export const MAX_URL = 2048;
export const MAX_OBSERVES = 50;

export function presentIntegration(row: IntegrationRow) {
  const configuration = JSON.parse(row.configuration) as JsonObject;
  return {
    id: row.id,
    type: 'integration',
    name: row.name,
    description: row.description ?? '',
    enabled: row.enabled === 1,
    integration_type: row.integration_type,
    observes: JSON.parse(row.observes) as string[],
    configuration: Object.fromEntries(
      Object.entries(configuration).filter(([key]) => !SECRETS.has(key)),
    ),
    links: { self: `/v2/integrations/${row.id}` },
    meta: { timestamps: { created_at: row.created_at, updated_at: row.updated_at } },
  };
}

export function presentJob(row: IntegrationJobRow) {
  return {
    id: row.id,
    type: 'integration-job',
    triggered_by: row.triggered_by,
    status: row.status,
    attempts: row.attempts,
    relationships: { integration: { data: { type: 'integration', id: row.integration_id } } },
    links: { self: `/v2/integrations/${row.integration_id}/jobs/${row.id}` },
    meta: { timestamps: { created_at: row.created_at, updated_at: row.updated_at } },
  };
}

export function presentLog(row: IntegrationLogRow) {
  return {
    id: row.id,
    type: 'integration-log',
    succeeded: row.succeeded === 1,
    attempt: row.attempt,
    body: row.body ?? '',
    status_code: row.status_code,
    error_detail: row.error_detail ?? '',
    processing_time: row.processing_time,
    relationships: {
      integration: { data: { type: 'integration', id: row.integration_id } },
      job: { data: { type: 'integration-job', id: row.job_id } },
    },
    meta: { timestamps: { created_at: row.created_at, updated_at: row.updated_at } },
  };
}

/** What a body sets; absent keys are left as they are on update. */
export interface IntegrationInput {
  name?: string;
  description?: string | null;
  enabled?: boolean;
  integration_type?: IntegrationType;
  observes?: string[];
  configuration?: JsonObject;
}

const ATTRIBUTES = [
  'type',
  'id',
  'name',
  'description',
  'enabled',
  'integration_type',
  'observes',
  'configuration',
  'links',
  'meta',
];

/** Judges a create (`creating`) or update body, before any work. */
export function parseIntegration(body: unknown, creating: boolean): IntegrationInput {
  const data = requireData(body);
  checkType(data, 'integration');
  rejectUnknownKeys(data, ATTRIBUTES);
  const input: IntegrationInput = {};
  const name = creating ? requireText(data, 'name') : optionalText(data, 'name');
  if (name !== undefined) input.name = name;
  if (data.description === null) input.description = null;
  const description = optionalText(data, 'description', { blank: true, max: 1000 });
  if (description !== undefined) input.description = description;
  const enabled = optionalBoolean(data, 'enabled');
  if (enabled !== undefined) input.enabled = enabled;
  const type = optionalEnum(data, 'integration_type', INTEGRATION_TYPES);
  if (creating && type === undefined) {
    throw badRequest(
      'data.integration_type is required: "webhook", "aws_sqs" or "stomp".',
      'data.integration_type',
    );
  }
  if (type !== undefined) input.integration_type = type;
  const observes = parseObserves(data, creating);
  if (observes !== undefined) input.observes = observes;
  if (creating || data.configuration !== undefined) {
    input.configuration = requireObject(data, 'configuration', { shape: '{url, secret_key?}' });
  }
  return input;
}

function parseObserves(data: JsonObject, creating: boolean): string[] | undefined {
  if (creating && (data.observes === undefined || data.observes === null)) {
    throw badRequest('data.observes is required: a list of event names.', 'data.observes');
  }
  const events = optionalStringList(data, 'observes', {
    maxItems: MAX_OBSERVES,
    item: { min: 1, max: 80 },
  });
  if (events === undefined) return undefined;
  if (events.length === 0) {
    throw badRequest('data.observes must name at least one event.', 'data.observes');
  }
  events.forEach((event, i) => {
    if (!isKnownEvent(event)) {
      throw badRequest(
        `data.observes[${i}] is not an event this service sends; use one of ${KNOWN_EVENTS.join(', ')} or <custom api_type>.created|updated|deleted.`,
        `data.observes[${i}]`,
      );
    }
  });
  return [...new Set(events)];
}

/**
 * The configuration to store: `given` merged over `stored` (a secret left out is kept), judged
 * for `type`: an http(s) `url` (loopback allowed: local tools and tests listen there), no
 * credentials in it, and only the type's keys, each a bounded string (stomp's `addresses` a
 * bounded list).
 */
export function judgeConfiguration(
  type: IntegrationType,
  given: JsonObject | undefined,
  stored: JsonObject,
): JsonObject {
  const merged: JsonObject = { ...stored };
  const allowed = CONFIGURATION_KEYS[type];
  if (given !== undefined) {
    rejectUnknownKeys(given, allowed, 'data.configuration');
    for (const [key, value] of Object.entries(given)) {
      if (value === null) delete merged[key];
      else merged[key] = value;
    }
  }
  for (const key of Object.keys(merged)) if (!allowed.includes(key)) delete merged[key];
  const url = requireText(merged, 'url', { prefix: 'data.configuration', max: MAX_URL });
  judgeUrl(url);
  for (const key of allowed) {
    if (key === 'url' || merged[key] === undefined) continue;
    if (key === 'addresses') {
      optionalStringList(merged, key, {
        prefix: 'data.configuration',
        maxItems: 20,
        item: { min: 1, max: MAX_URL },
      });
    } else {
      optionalText(merged, key, { prefix: 'data.configuration' });
    }
  }
  return merged;
}

function judgeUrl(raw: string): void {
  const source = 'data.configuration.url';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw badRequest(`${source} is not a URL.`, source);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw badRequest(`${source} must be an http or https URL.`, source);
  }
  if (url.username !== '' || url.password !== '') {
    throw badRequest(
      `${source} must not carry credentials; send a secret in data.configuration.secret_key.`,
      source,
    );
  }
}
