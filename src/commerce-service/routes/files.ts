/**
 * Files: multipart upload (field `file`, optional field `public`), bytes kept in SQLite (table
 * file_contents, apart from the metadata rows the list scans). The list has the hard offset
 * limit of the production API (page[offset] > 10,000 → 400).
 */
import multipart from '@fastify/multipart';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.ts';
import type { Db } from '../db.ts';
import { ApiError, badRequest, notFound, payloadTooLarge } from '../errors.ts';
import { isUuid, newId } from '../ids.ts';
import { listResources, OFFSET_LIMIT, standardListSpec } from '../listing.ts';

/** Largest accepted upload: 10 MiB; above it the upload is refused with 413, nothing stored. */
export const MAX_FILE_SIZE = 10 * 1024 * 1024;

const MAX_NAME = 255;

export interface FileRow {
  id: string;
  store_id: string;
  file_name: string;
  mime_type: string;
  file_size: number;
  public: number;
  created_at: string;
  updated_at: string;
}

const FILE_COLUMNS =
  'id, store_id, file_name, mime_type, file_size, public, created_at, updated_at';

/** The file's own address, absolute, as the production API's `link.href` is. */
function hrefOf(request: FastifyRequest, id: string): string {
  return `${request.protocol}://${request.host}/v2/files/${id}/content`;
}

export function presentFile(request: FastifyRequest, row: FileRow) {
  return {
    id: row.id,
    type: 'file',
    file_name: row.file_name,
    mime_type: row.mime_type,
    file_size: row.file_size,
    public: row.public === 1,
    link: { href: hrefOf(request, row.id) },
    links: { self: `/v2/files/${row.id}` },
    meta: { timestamps: { created_at: row.created_at, updated_at: row.updated_at } },
  };
}

function findFile(db: Db, storeId: string, id: string): FileRow {
  const row = isUuid(id)
    ? (db
        .prepare(`SELECT ${FILE_COLUMNS} FROM files WHERE store_id = ? AND id = ?`)
        .get(storeId, id.toLowerCase()) as FileRow | undefined)
    : undefined;
  if (!row) throw notFound(`No file with id ${id}.`);
  return row;
}

function parsePublic(value: unknown): boolean {
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0' || value === '') return false;
  throw badRequest('The "public" field must be true or false.', 'public');
}

interface Upload {
  fileName: string;
  mimeType: string;
  bytes: Buffer;
  isPublic: boolean;
}

async function readUpload(request: FastifyRequest): Promise<Upload> {
  if (!request.isMultipart()) {
    throw badRequest(
      'Upload a file as multipart/form-data with the bytes in the field "file".',
      'file',
    );
  }
  let upload: Omit<Upload, 'isPublic'> | undefined;
  let isPublic = false;
  try {
    for await (const part of request.parts({ limits: { fileSize: MAX_FILE_SIZE, parts: 20 } })) {
      if (part.type === 'field') {
        if (part.fieldname === 'public') isPublic = parsePublic(part.value);
        continue;
      }
      if (part.fieldname !== 'file' || upload !== undefined) {
        throw badRequest(
          `Unexpected file field "${part.fieldname}": send exactly one file, in the field "file".`,
          'file',
        );
      }
      const fileName = part.filename.trim();
      const bytes = await part.toBuffer();
      if (fileName === '') throw badRequest('The uploaded file needs a file name.', 'file');
      if (fileName.length > MAX_NAME) {
        throw badRequest(`The file name must be at most ${MAX_NAME} characters.`, 'file');
      }
      upload = { fileName, mimeType: part.mimetype || 'application/octet-stream', bytes };
    }
  } catch (error) {
    if (error instanceof ApiError) throw error;
    const code = (error as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') {
      throw payloadTooLarge(`The file is larger than the ${MAX_FILE_SIZE} bytes (10 MiB) allowed.`);
    }
    throw error;
  }
  if (upload === undefined) {
    throw badRequest('The multipart body has no file in the field "file".', 'file');
  }
  return { ...upload, isPublic };
}

export function fileRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const { db } = ctx;
  const spec = standardListSpec({ hardOffsetLimit: OFFSET_LIMIT });
  const insertFile = db.prepare(
    `INSERT INTO files (id, store_id, file_name, mime_type, file_size, public, created_at,
                        updated_at)
     VALUES (@id, @store_id, @file_name, @mime_type, @file_size, @public, @created_at,
             @updated_at)`,
  );
  const insertContent = db.prepare('INSERT INTO file_contents (file_id, content) VALUES (?, ?)');

  return async (app) => {
    // Scoped to this plugin: only the files routes accept multipart bodies.
    await app.register(multipart, { limits: { fileSize: MAX_FILE_SIZE } });

    app.post('/files', async (request, reply) => {
      const upload = await readUpload(request);
      const now = ctx.timestamp();
      const row: FileRow = {
        id: newId(),
        store_id: request.store.id,
        file_name: upload.fileName,
        mime_type: upload.mimeType,
        file_size: upload.bytes.length,
        public: upload.isPublic ? 1 : 0,
        created_at: now,
        updated_at: now,
      };
      db.transaction(() => {
        insertFile.run(row);
        insertContent.run(row.id, upload.bytes);
      })();
      reply.code(201);
      return { data: presentFile(request, row) };
    });

    app.get('/files', async (request) =>
      listResources({
        request,
        db,
        table: 'files',
        columns: FILE_COLUMNS,
        scope: { store_id: request.store.id },
        spec,
        map: (row: FileRow) => presentFile(request, row),
      }),
    );

    app.get<{ Params: { fileId: string } }>('/files/:fileId', async (request) => ({
      data: presentFile(request, findFile(db, request.store.id, request.params.fileId)),
    }));

    // The bytes, with the type they were uploaded as; always as an attachment, so an uploaded
    // HTML file is never rendered on the service's origin. Needs the bearer token like every route.
    app.get<{ Params: { fileId: string } }>('/files/:fileId/content', async (request, reply) => {
      const row = findFile(db, request.store.id, request.params.fileId);
      const content = db
        .prepare('SELECT content FROM file_contents WHERE file_id = ?')
        .pluck()
        .get(row.id) as Uint8Array;
      return reply
        .type(row.mime_type)
        .header(
          'content-disposition',
          `attachment; filename="${encodeURIComponent(row.file_name)}"`,
        )
        .header('x-content-type-options', 'nosniff')
        .send(Buffer.from(content.buffer, content.byteOffset, content.byteLength));
    });

    app.delete<{ Params: { fileId: string } }>('/files/:fileId', async (request, reply) => {
      const row = findFile(db, request.store.id, request.params.fileId);
      db.prepare('DELETE FROM files WHERE id = ?').run(row.id);
      return reply.code(204).send();
    });
  };
}
