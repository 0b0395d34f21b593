/** File: an uploaded file of the store (`/v2/files`), as a node and a connection. */

import { isJsonObject, type JsonObject } from '../upstream/client.ts';
import type { GatewayContext } from '../upstream/session.ts';
import { builder } from './builder.ts';
import { defineListArgs, type Listed, resolveList } from './connection.ts';
import type { EntityDefinition } from './federation.ts';
import { loadById } from './lookups.ts';
import { judgeUuid, readOptionalString, readString, readTimestamps } from './rows.ts';

export interface FileShape extends Listed {
  fileName: string;
  mimeType: string | null;
  fileSize: number | null;
  href: string | null;
}

export function toFile(row: JsonObject): FileShape {
  const link = isJsonObject(row.link) ? row.link : {};
  return {
    upstreamId: readString(row, 'id', 'file'),
    fileName: readString(row, 'file_name', 'file'),
    mimeType: readOptionalString(row, 'mime_type'),
    fileSize: typeof row.file_size === 'number' ? row.file_size : null,
    href: readOptionalString(link, 'href'),
    ...readTimestamps(row, 'file'),
  };
}

/** One row by upstream id through the per-request `in(id,…)` batch loader; null when missing. */
export function fetchFile(context: GatewayContext, id: string): Promise<FileShape | null> {
  return loadById(context, ['files'], id, toFile);
}

export const FileRef = builder.objectRef<FileShape>('File');

export const FileConnection = builder.connectionObject(
  { type: FileRef, name: 'FileConnection', description: 'A page of files.' },
  { name: 'FileEdge', description: 'One of the files with its cursor.' },
);
const fileListArgs = defineListArgs('File', 'files');

builder.node(FileRef, {
  description: 'A file uploaded to the store.',
  id: { resolve: (file) => file.upstreamId },
  loadOne: (id, context) => fetchFile(context, judgeUuid(id, 'id')),
  fields: (t) => ({
    upstreamId: t.exposeID('upstreamId', { description: 'The file id upstream (uuid).' }),
    fileName: t.exposeString('fileName', { description: 'Original file name.' }),
    mimeType: t.exposeString('mimeType', { nullable: true, description: 'Media type.' }),
    fileSize: t.exposeInt('fileSize', { nullable: true, description: 'Size in bytes.' }),
    href: t.exposeString('href', { nullable: true, description: 'Where the file is served.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'Upload time.' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'Last update time.' }),
  }),
});

builder.queryFields((t) => ({
  file: t.field({
    type: FileRef,
    nullable: true,
    description: 'One file by upstream id; null when the store has no such file.',
    args: { id: t.arg.id({ required: true, description: 'Upstream id of the file.' }) },
    resolve: (_root, args, context) => fetchFile(context, judgeUuid(args.id, 'id')),
  }),
  files: t.connection(
    {
      type: FileRef,
      description: 'The files of the store.',
      args: fileListArgs,
      resolve: (_root, args, context) =>
        resolveList(context, args, { connection: 'files', segments: ['files'], toNode: toFile }),
    },
    FileConnection,
  ),
}));

/** Federation: File is an entity keyed by `upstreamId` (src/schema/federation.ts). */
export const FileEntity: EntityDefinition = {
  typeName: 'File',
  keyFields: ['upstreamId'],
  resolve: (representation, context) =>
    fetchFile(context, judgeUuid(representation.upstreamId as string, 'upstreamId')),
};
