/**
 * Trusted documents (PERSISTED_DOCUMENTS): the gateway runs only the operations of a manifest
 * the storefront's build produced, chosen by id; any other request is refused with a coded 400
 * before its text is parsed. Off unless a manifest is given.
 *
 * Manifests: Apollo's persisted-query manifest
 * (`{"format":"apollo-persisted-query-manifest","version":1,"operations":[{"id","body","name","type"}]}`,
 * from @apollo/generate-persisted-query-manifest) and Relay's (`{"<id>":"<query text>"}`, from
 * relay-compiler's `persistConfig`). Ids: `documentId` in the body or the GET query (the
 * GraphQL-over-HTTP persisted documents convention, with or without a `sha256:` prefix) and
 * Apollo's `extensions.persistedQuery.sha256Hash`. Yoga's persisted-operations plugin does the
 * request side; this module reads and judges manifests and picks the id.
 */
import { readFileSync } from 'node:fs';
import {
  defaultExtractPersistedOperationId,
  usePersistedOperations,
} from '@graphql-yoga/plugin-persisted-operations';
import { parse } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { ConfigError } from '../config/errors.ts';
import {
  type GatewayErrorCode,
  PersistedQueryNotFoundError,
  PersistedQueryOnlyError,
  type RequestError,
} from '../upstream/errors.ts';

/** Trusted documents by id: the query text to run. */
export type PersistedDocuments = ReadonlyMap<string, string>;

/** The code of a request that sent query text, or no id (PersistedQueryOnlyError). */
export const PERSISTED_QUERY_ONLY_CODE: GatewayErrorCode = 'PERSISTED_QUERY_ONLY';
/** The code of an id that is not in the manifest (PersistedQueryNotFoundError). */
export const PERSISTED_QUERY_NOT_FOUND_CODE: GatewayErrorCode = 'PERSISTED_QUERY_NOT_FOUND';

/**
 * A manifest the gateway cannot use; the message says why. Never a client's: it stops the
 * gateway before it starts (as the ConfigError loadPersistedDocuments makes of it).
 */
export class ManifestError extends Error {
  override name = 'ManifestError';
  readonly code = 'INVALID_MANIFEST';
}

const APOLLO_FORMAT = 'apollo-persisted-query-manifest';
const MAX_ID_LENGTH = 256;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The documents of a parsed manifest (Apollo or Relay format). Throws ManifestError when it is
 * neither, lists nothing, gives one id two texts, or holds a text that is not GraphQL.
 */
export function documentsFromManifest(manifest: unknown): Map<string, string> {
  const documents = new Map<string, string>();
  const add = (id: unknown, body: unknown, where: string) => {
    if (typeof id !== 'string' || id === '' || id.length > MAX_ID_LENGTH) {
      throw new ManifestError(`${where}: the id must be a string of 1-${MAX_ID_LENGTH} characters`);
    }
    if (typeof body !== 'string' || body.trim() === '') {
      throw new ManifestError(`${where}: the document text must be a non-empty string`);
    }
    const known = documents.get(id);
    if (known !== undefined && known !== body) {
      throw new ManifestError(`${where}: id ${id} is given two different documents`);
    }
    try {
      parse(body);
    } catch (error) {
      throw new ManifestError(
        `${where}: the document does not parse: ${error instanceof Error ? error.message : error}`,
        { cause: error },
      );
    }
    documents.set(id, body);
  };

  if (isRecord(manifest) && 'format' in manifest) {
    if (manifest.format !== APOLLO_FORMAT || manifest.version !== 1) {
      throw new ManifestError(
        `unsupported manifest format ${JSON.stringify(manifest.format)} version ` +
          `${JSON.stringify(manifest.version)}; expected "${APOLLO_FORMAT}" version 1`,
      );
    }
    if (!Array.isArray(manifest.operations)) {
      throw new ManifestError('an Apollo manifest needs an "operations" array');
    }
    manifest.operations.forEach((operation: unknown, index) => {
      const where = `operations[${index}]`;
      if (!isRecord(operation)) throw new ManifestError(`${where} is not an object`);
      add(operation.id, operation.body, where);
    });
  } else if (isRecord(manifest)) {
    // Relay: every value is the text of the document whose id is its key.
    for (const [id, body] of Object.entries(manifest)) add(id, body, `"${id.slice(0, 80)}"`);
  } else {
    throw new ManifestError(
      'not a persisted-documents manifest: expected an Apollo manifest ' +
        `({"format":"${APOLLO_FORMAT}","version":1,"operations":[…]}) or a Relay one ({"<id>":"<query>"})`,
    );
  }
  if (documents.size === 0) throw new ManifestError('the manifest lists no documents');
  return documents;
}

/** Reads and judges a manifest file; ManifestError with the reason when it cannot be used. */
export function readPersistedDocuments(path: string): Map<string, string> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ManifestError(`cannot read ${path}${code ? ` (${code})` : ''}`, { cause: error });
  }
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch (error) {
    throw new ManifestError(
      `${path} is not JSON: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  try {
    return documentsFromManifest(manifest);
  } catch (error) {
    if (error instanceof ManifestError) {
      throw new ManifestError(`${path}: ${error.message}`, { cause: error.cause });
    }
    throw error;
  }
}

/**
 * The manifest `PERSISTED_DOCUMENTS` names (GatewayConfig.persistedDocumentsPath), read once at
 * startup; undefined when none is set. A manifest that cannot be used is a ConfigError naming
 * the variable, so `npm start` stops with the reason before anything starts.
 */
export function loadPersistedDocuments(path: string | undefined): PersistedDocuments | undefined {
  if (path === undefined || path === '') return undefined;
  try {
    return readPersistedDocuments(path);
  } catch (error) {
    if (error instanceof ManifestError) {
      throw new ConfigError(`PERSISTED_DOCUMENTS: ${error.message}`, { cause: error });
    }
    throw error;
  }
}

/** The text of a trusted document, by its id as sent or without a `sha256:` prefix. */
export function lookupDocument(documents: PersistedDocuments, id: string): string | null {
  const exact = documents.get(id);
  if (exact !== undefined) return exact;
  return id.startsWith('sha256:') ? (documents.get(id.slice(7)) ?? null) : null;
}

const ONLY_MESSAGE =
  'This gateway runs only trusted documents: send the id of a document in its manifest as ' +
  '`documentId` (or extensions.persistedQuery.sha256Hash), without query text';

/** What Yoga's persisted-operations plugin answers a refused request with. */
function answer(refusal: RequestError): { message: string; extensions: Record<string, unknown> } {
  return { message: refusal.message, extensions: refusal.answerExtensions };
}

/** Yoga plugin: only the documents of `documents` run, by id. */
export function persistedDocumentsPlugin(documents: PersistedDocuments): Plugin {
  const only = answer(new PersistedQueryOnlyError(ONLY_MESSAGE));
  return usePersistedOperations({
    allowArbitraryOperations: false,
    extractPersistedOperationId(params, request, context) {
      const documentId = (params as { documentId?: unknown }).documentId;
      if (typeof documentId === 'string' && documentId !== '') return documentId;
      const hash = defaultExtractPersistedOperationId(params, request, context);
      if (hash !== null) return hash;
      if (request.method === 'GET') {
        const query = request.url.indexOf('?');
        const id =
          query === -1 ? null : new URLSearchParams(request.url.slice(query)).get('documentId');
        if (id) return id;
      }
      return null;
    },
    getPersistedOperation: (id) => lookupDocument(documents, id),
    customErrors: {
      persistedQueryOnly: only,
      keyNotFound: only,
      // The id is not echoed: it is the caller's input, of any length.
      notFound: answer(
        new PersistedQueryNotFoundError(
          'No trusted document has this id: rebuild the manifest, or send a listed id',
        ),
      ),
    },
  }) as Plugin;
}
