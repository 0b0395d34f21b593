/**
 * Integrations (`/v2/integrations`: webhooks that receive the store's events) and order export
 * jobs (`/v2/jobs`), as nodes and connections; the integration writes are in
 * integration-mutations.ts. Both are the store's (client_credentials) to read. An
 * integration's secret key is never read back: the upstream does not show it.
 */

import { defineResource, field } from './resource.ts';

const stringList = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];

export const Integrations = defineResource({
  name: 'Integration',
  singular: 'integration',
  plural: 'integrations',
  description:
    'An integration of the store: a webhook the upstream posts the events it observes to, ' +
    'with its secret key in X-Moltin-Secret-Key (at least once, retried with backoff).',
  path: '/v2/integrations',
  body: 'flat',
  timestamps: 'meta.timestamps',
  readableBy: ['client_credentials'],
  fields: {
    name: field.string('Integration name.'),
    description: field.string('What the integration is for.', { nullable: true }),
    enabled: field.boolean('Whether events are delivered to it.'),
    integrationType: field.string('`webhook` (delivered), `aws_sqs` or `stomp`.'),
    url: field.string('Where events are posted.', { from: 'configuration.url', nullable: true }),
    observedEvents: field.carried((row) => stringList(row.observes)),
  },
  extraFields: (t) => ({
    observes: t.stringList({
      description:
        'The events it receives: order.created, cart.updated, customer.created, … and ' +
        '`<api_type>.created|updated|deleted` of Custom API entries.',
      resolve: (integration) => integration.observedEvents,
    }),
  }),
  lookup: { field: 'integration' },
  list: {
    field: 'integrations',
    description: 'The integrations of the store.',
    connection: 'integrations',
    paging: 'keyset',
    offsetLimit: 'soft',
  },
  entity: true,
});

export const ExportJobs = defineResource({
  name: 'ExportJob',
  singular: 'export job',
  plural: 'export jobs',
  label: 'job',
  description:
    'An order export (POST /v2/jobs, job_type order_export): run in the background, its CSV ' +
    'file linked once complete.',
  path: '/v2/jobs',
  body: 'flat',
  timestamps: 'meta.timestamps',
  readableBy: ['client_credentials'],
  fields: {
    jobType: field.string('What the job does: `order_export`.'),
    status: field.string('`pending`, `processing`, `complete` or `failed`.'),
    fileHref: field.string('The exported file, once complete (read with the store’s token).', {
      from: 'link.href',
      nullable: true,
    }),
  },
  lookup: { field: 'exportJob' },
  list: {
    field: 'exportJobs',
    description: 'The order export jobs of the store.',
    connection: 'exportJobs',
    paging: 'keyset',
    offsetLimit: 'soft',
  },
  entity: true,
});
