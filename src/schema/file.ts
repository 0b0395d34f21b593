/** File: an uploaded file of the store (`/v2/files`), as a node and a connection. */

import { defineResource, field } from './resource.ts';

export const Files = defineResource({
  name: 'File',
  singular: 'file',
  plural: 'files',
  description: 'A file uploaded to the store.',
  path: '/v2/files',
  body: 'flat',
  timestamps: 'meta.timestamps',
  readableBy: ['client_credentials'],
  fields: {
    fileName: field.string('Original file name.'),
    mimeType: field.string('Media type.', { nullable: true }),
    fileSize: field.int('Size in bytes.', { nullable: true }),
    href: field.string('Where the file is served.', { from: 'link.href', nullable: true }),
    url: field.string(
      'Where a browser loads the file with no token (its public `link.href`); null when the ' +
        'upstream gives none.',
      { from: 'link.href', nullable: true },
    ),
    altText: field.string('Text for `alt`, when the upstream keeps one (`meta.alt_text`).', {
      from: 'meta.alt_text',
      nullable: true,
    }),
    width: field.int('Width in pixels, when the upstream says (`meta.dimensions`).', {
      from: 'meta.dimensions.width',
      nullable: true,
    }),
    height: field.int('Height in pixels, when the upstream says (`meta.dimensions`).', {
      from: 'meta.dimensions.height',
      nullable: true,
    }),
    createdAt: field.dateTime('Upload time.'),
  },
  lookup: { field: 'file' },
  list: {
    field: 'files',
    description: 'The files of the store.',
    connection: 'files',
    paging: 'keyset',
    offsetLimit: 'hard',
  },
  entity: true,
});
