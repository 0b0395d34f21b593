import { builder } from './builder.ts';
import { Integrations } from './integration.ts';
import { defineResource, field } from './resource.ts';
import { relationId } from './rows.ts';

export const IntegrationLogs = defineResource({
  name: 'IntegrationLog',
  singular: 'integration log',
  plural: 'integration logs',
  label: 'integration_log',
  description:
    'One attempt to deliver an event to an integration: whether it succeeded, the HTTP status ' +
    'the receiver answered and, when it failed, why.',
  path: '/v2/integrations/logs',
  body: 'flat',
  timestamps: 'meta.timestamps',
  readableBy: ['client_credentials'],
  fields: {
    succeeded: field.boolean('Whether the receiver took it (a 2xx in time).'),
    attempt: field.int('Which attempt of the delivery this was (1 first).'),
    statusCode: field.int('The receiver’s HTTP status; null when none came back.', {
      nullable: true,
    }),
    errorDetail: field.string('Why the attempt failed; empty when it succeeded.', {
      nullable: true,
    }),
    integrationId: field.id('The integration (upstream id).', {
      read: (row) => relationId(row, 'integration') ?? '',
    }),
    jobId: field.id('The delivery (one event to one integration) it was an attempt of.', {
      read: (row) => relationId(row, 'job') ?? '',
    }),
  },
  list: {
    field: 'integrationLogs',
    description: 'Every delivery attempt of every integration of the store.',
    connection: 'integration-logs',
    paging: 'offset',
    offsetLimit: 'soft',
  },
});

builder.objectFields(Integrations.ref, (t) => ({
  logs: IntegrationLogs.connectionField(t, {
    description: 'This integration’s delivery attempts.',
    connection: 'integration-logs-of',
    at: {
      path: '/v2/integrations/{integrationId}/logs',
      params: (integration) => ({ integrationId: integration.upstreamId }),
    },
  }),
}));

export const PcmJobs = defineResource({
  name: 'PcmJob',
  singular: 'catalog job',
  plural: 'catalog jobs',
  label: 'pim_job',
  description:
    'A job of the Product Experience Manager (a parent product’s child build): its kind and ' +
    'status (pending, started, success, failed, cancelled).',
  path: '/pcm/jobs',
  item: '/pcm/jobs/{id}',
  lookupBy: 'item',
  body: 'nested',
  timestamps: 'attributes',
  readableBy: ['client_credentials'],
  fields: {
    jobType: field.string('`child-products`, `product-import`, …', { from: 'attributes.type' }),
    status: field.string('`pending`, `started`, `success`, `failed` or `cancelled`.'),
    startedAt: field.string('When it started.', { nullable: true }),
    completedAt: field.string('When it ended.', { nullable: true }),
  },
  lookup: { field: 'pcmJob' },
  list: {
    field: 'pcmJobs',
    description: 'The catalog jobs of the store.',
    connection: 'pcm-jobs',
    paging: 'offset',
    offsetLimit: 'soft',
  },
});
