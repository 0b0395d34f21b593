/**
 * The merchandiser's integration writes: create, update and delete a webhook. Every input is
 * judged before any call: the URL (http or https, no credentials in it, at most 2,048
 * characters), the events (from the list the upstream sends, at most 50), names and the secret
 * key bounded. The secret key is written, never read back.
 */

import { expectResource, type JsonObject, type UpstreamResponse } from '../upstream/client.ts';
import { BadUserInputError } from '../upstream/errors.ts';
import type { InputFieldBuilder } from './cart-write.ts';
import { Integrations } from './integration.ts';
import { idKind } from './kit/ids.ts';
import { defineMutation, type IdFields } from './kit/mutation.ts';
import { answerPayload, defineDelete, writeAnswer } from './kit/writes.ts';
import type { ShapeOfResource } from './resource.ts';
import { judgeNonEmpty } from './rows.ts';

/** The events the embedded service sends (src/commerce-service/integrations/events.ts). */
export const INTEGRATION_EVENTS = [
  'order.created',
  'order.updated',
  'cart.updated',
  'customer.created',
  'account.created',
  'catalog-release.created',
  'stock-transaction.created',
  'account-member.created',
  'account-membership.created',
] as const;
const ENTRY_EVENT = /^[a-z0-9_]{1,59}_ext\.(created|updated|deleted)$/;
const MAX_EVENTS = 50;
const MAX_URL = 2048;

function judgeUrl(value: string, field: string): string {
  let url: URL | undefined;
  try {
    url = value.length <= MAX_URL ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new BadUserInputError(
      `${field} must be an http or https URL of at most ${MAX_URL} characters`,
      { field },
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw new BadUserInputError(`${field} must not carry credentials; use secretKey`, { field });
  }
  return value;
}

function judgeEvents(values: readonly string[], field: string): string[] {
  if (values.length === 0 || values.length > MAX_EVENTS) {
    throw new BadUserInputError(`${field} must name 1 to ${MAX_EVENTS} events`, { field });
  }
  values.forEach((event, i) => {
    if (!(INTEGRATION_EVENTS as readonly string[]).includes(event) && !ENTRY_EVENT.test(event)) {
      throw new BadUserInputError(
        `${field}[${i}] must be one of ${INTEGRATION_EVENTS.join(', ')} or <api_type>.created|updated|deleted`,
        { field: `${field}[${i}]` },
      );
    }
  });
  return [...new Set(values)];
}

interface IntegrationValues {
  name?: string | null;
  description?: string | null;
  enabled?: boolean | null;
  observes?: readonly string[] | null;
  url?: string | null;
  secretKey?: string | null;
}

/** The v2 body of the given values, each judged; `creating` requires name, events and URL. */
function integrationBody(input: IntegrationValues, creating: boolean): JsonObject {
  const data: JsonObject = { type: 'integration' };
  if (creating) data.integration_type = 'webhook';
  const required = (value: unknown, name: string) => {
    if (creating && (value === null || value === undefined)) {
      throw new BadUserInputError(`input.${name} is required`, { field: `input.${name}` });
    }
  };
  required(input.name, 'name');
  required(input.observes, 'observes');
  required(input.url, 'url');
  if (input.name != null) data.name = judgeNonEmpty(input.name, 'input.name');
  if (input.description != null) {
    if (input.description.length > 1000) {
      throw new BadUserInputError('input.description must be at most 1000 characters', {
        field: 'input.description',
      });
    }
    data.description = input.description;
  }
  if (input.enabled != null) data.enabled = input.enabled;
  if (input.observes != null) data.observes = judgeEvents(input.observes, 'input.observes');
  const configuration: JsonObject = {};
  if (input.url != null) configuration.url = judgeUrl(input.url, 'input.url');
  if (input.secretKey != null) {
    configuration.secret_key = judgeNonEmpty(input.secretKey, 'input.secretKey');
  }
  if (Object.keys(configuration).length > 0) data.configuration = configuration;
  if (!creating && Object.keys(data).length === 1) {
    throw new BadUserInputError('input must change at least one field', { field: 'input' });
  }
  return data;
}

type IntegrationShape = ShapeOfResource<typeof Integrations>;

const valueFields = (t: InputFieldBuilder, creating: boolean) => ({
  name: t.string({ required: creating, description: 'Integration name (at most 255 characters).' }),
  description: t.string({ required: false, description: 'What it is for (at most 1,000).' }),
  enabled: t.boolean({
    required: false,
    description: 'Whether events are delivered; default true.',
  }),
  observes: t.stringList({
    required: creating,
    description: `The events it receives (1 to ${MAX_EVENTS}): ${INTEGRATION_EVENTS.join(', ')}, or <api_type>.created|updated|deleted of a Custom API.`,
  }),
  url: t.string({
    required: creating,
    description: 'The http(s) URL events are posted to (at most 2,048 characters).',
  }),
  secretKey: t.string({
    required: false,
    description: 'Sent with every delivery as X-Moltin-Secret-Key; never read back.',
  }),
});

const INTEGRATION_IDS = {
  integrationId: [idKind('Integration'), 'The integration'],
} as const satisfies IdFields<'integrationId'>;

const readIntegration = (response: UpstreamResponse): IntegrationShape =>
  Integrations.read(expectResource(response));

const payload = (name: string, description: string) =>
  answerPayload<IntegrationShape>(name, {
    description,
    field: 'integration',
    type: Integrations.ref,
  });

defineMutation('createIntegration', {
  description: 'Creates a webhook integration (POST /v2/integrations).',
  input: { description: 'A new webhook integration.', fields: (t) => valueFields(t, true) },
  payload: payload('CreateIntegrationPayload', 'The integration that was created.'),
  resolve: (input, context) =>
    writeAnswer(
      context,
      { method: 'POST', segments: ['integrations'], body: { data: integrationBody(input, true) } },
      readIntegration,
    ),
});

defineMutation('updateIntegration', {
  description: 'Changes an integration (PUT /v2/integrations/{id}).',
  ids: INTEGRATION_IDS,
  input: {
    description: 'A change to an integration; fields left out stay as they are (the secret too).',
    fields: (t) => valueFields(t, false),
  },
  payload: payload('UpdateIntegrationPayload', 'The integration after the change.'),
  resolve: (input, context, { integrationId }) =>
    writeAnswer(
      context,
      {
        method: 'PUT',
        segments: ['integrations', integrationId],
        body: { data: integrationBody(input, false) },
      },
      readIntegration,
    ),
});

defineDelete('deleteIntegration', {
  description: 'Deletes an integration with its jobs and logs (DELETE /v2/integrations/{id}).',
  what: 'integration (with its jobs and logs)',
  ids: INTEGRATION_IDS,
  deleted: 'integrationId',
  request: ({ integrationId }) => ({ segments: ['integrations', integrationId] }),
});
