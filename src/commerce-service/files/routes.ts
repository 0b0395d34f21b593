/**
 * Files: multipart upload (field `file`, optional field `public`), bytes kept in SQLite (table
 * file_contents, apart from the metadata rows the list scans). The list has the hard offset
 * limit of the production API (page[offset] > 10,000 → 400).
 *
 * Who sees a file. Production serves every file from its CDN at a public URL (`link.href`) and
 * lets a shopper's implicit token read files (the reference storefront's getAllFiles): that is
 * how product images reach a browser. Here a file's `public` flag (false unless the upload says
 * true) decides it: a public file is any token's to read, and its `link.href` is the service's
 * public address of its bytes, `/files/{id}/{file_name}`, loaded with no token, as a browser
 * loads an <img> (publicFileRoutes, outside /v2 like the CDN is outside the API). A private file
 * stays the store's alone: a shopper's token does not see it (not listed, 404 by id), and its
 * `link.href` is `/v2/files/{id}/content`, which needs the store's token.
 */
import multipart from '@fastify/multipart';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.ts';
import type { Db } from '../db.ts';
import { ApiError, badRequest, notFound, payloadTooLarge } from '../errors.ts';
import { isUuid, newId } from '../ids.ts';
import { listResources, OFFSET_LIMIT, standardListSpec } from '../listing/index.ts';

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

/**
 * The file's own address, absolute, as the production API's `link.href` is: the tokenless
 * public address of a public file, the store's content route of a private one.
 */
function hrefOf(
  request: FastifyRequest,
  row: Pick<FileRow, 'id' | 'public' | 'file_name'>,
): string {
  const origin = `${request.protocol}://${request.host}`;
  return row.public === 1
    ? `${origin}/files/${row.id}/${encodeURIComponent(row.file_name)}`
    : `${origin}/v2/files/${row.id}/content`;
}

/** Whether this request sees only public files: any token but the store's own. */
function seesPublicOnly(request: FastifyRequest): boolean {
  return request.store.grant !== 'client_credentials';
}

export function presentFile(request: FastifyRequest, row: FileRow) {
  return {
    id: row.id,
    type: 'file',
    file_name: row.file_name,
    mime_type: row.mime_type,
    file_size: row.file_size,
    public: row.public === 1,
    link: { href: hrefOf(request, row) },
    links: { self: `/v2/files/${row.id}` },
    meta: { timestamps: { created_at: row.created_at, updated_at: row.updated_at } },
  };
}

/** The file of `id` in the request's store, as this request may see it (404 otherwise). */
function findFile(db: Db, request: FastifyRequest, id: string): FileRow {
  const row = isUuid(id)
    ? (db
        .prepare(`SELECT ${FILE_COLUMNS} FROM files WHERE store_id = ? AND id = ?`)
        .get(request.store.id, id.toLowerCase()) as FileRow | undefined)
    : undefined;
  if (!row || (row.public !== 1 && seesPublicOnly(request))) {
    throw notFound(`No file with id ${id}.`);
  }
  return row;
}

function fileBytes(db: Db, id: string): Buffer {
  const content = db
    .prepare('SELECT content FROM file_contents WHERE file_id = ?')
    .pluck()
    .get(id) as Uint8Array;
  return Buffer.from(content.buffer, content.byteOffset, content.byteLength);
}

/** Raster images a browser shows in place; anything else (SVG, HTML…) only as a download. */
const INLINE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif']);

function contentDisposition(row: FileRow): string {
  const kind = INLINE_TYPES.has(row.mime_type) ? 'inline' : 'attachment';
  return `${kind}; filename="${encodeURIComponent(row.file_name)}"`;
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
  // The filters files.yaml documents (width and height aside: no dimensions are kept here).
  const spec = standardListSpec({
    hardOffsetLimit: OFFSET_LIMIT,
    filters: {
      file_name: { column: 'file_name', kind: 'string', ops: ['eq', 'like'] },
      file_size: { column: 'file_size', kind: 'integer', ops: ['gt', 'ge', 'lt', 'le'] },
    },
  });
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
        ...(seesPublicOnly(request) ? { conditions: [{ sql: 'public = 1', params: [] }] } : {}),
        spec,
        map: (row: FileRow) => presentFile(request, row),
      }),
    );

    app.get<{ Params: { fileId: string } }>('/files/:fileId', async (request) => ({
      data: presentFile(request, findFile(db, request, request.params.fileId)),
    }));

    // The bytes, with the type they were uploaded as; an attachment unless a raster image, so
    // an uploaded HTML or SVG file is never rendered on the service's origin.
    app.get<{ Params: { fileId: string } }>('/files/:fileId/content', async (request, reply) => {
      const row = findFile(db, request, request.params.fileId);
      return reply
        .type(row.mime_type)
        .header('content-disposition', contentDisposition(row))
        .header('x-content-type-options', 'nosniff')
        .send(fileBytes(db, row.id));
    });

    app.delete<{ Params: { fileId: string } }>('/files/:fileId', async (request, reply) => {
      const row = findFile(db, request, request.params.fileId);
      db.prepare('DELETE FROM files WHERE id = ?').run(row.id);
      return reply.code(204).send();
    });
  };
}

/**
 * The public address of public files, `GET /files/{id}/{file_name}`: no token, as production's
 * CDN URLs need none, so a browser loads a product image from `link.href`. Only a public file
 * answers, and only under its own name; anything else is a 404 that says no more (a private
 * file's existence does not leak). Cacheable, and readable from any origin (a browser-side
 * storefront fetches images too).
 */
export function publicFileRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const { db } = ctx;
  const find = db.prepare(`SELECT ${FILE_COLUMNS} FROM files WHERE id = ? AND public = 1`);
  return async (app) => {
    app.get<{ Params: { fileId: string; fileName: string } }>(
      '/files/:fileId/:fileName',
      async (request, reply) => {
        const { fileId, fileName } = request.params;
        const row = isUuid(fileId)
          ? (find.get(fileId.toLowerCase()) as FileRow | undefined)
          : undefined;
        if (row === undefined || row.file_name !== fileName) {
          throw notFound('No public file at this address.');
        }
        return reply
          .type(row.mime_type)
          .header('content-disposition', contentDisposition(row))
          .header('x-content-type-options', 'nosniff')
          .header('content-security-policy', "default-src 'none'; sandbox")
          .header('cache-control', 'public, max-age=3600')
          .header('access-control-allow-origin', '*')
          .send(fileBytes(db, row.id));
      },
    );
  };
}
