/**
 * `POST /oauth/access_token` (outside /v2, as in production): the client_credentials grant
 * (client_id + client_secret → read/write token) and the implicit grant (client_id only →
 * read-only token). Takes application/x-www-form-urlencoded as the SDK sends it; JSON works too.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../context.ts';
import { ApiError, badRequest } from '../errors.ts';
import { findClient, type GrantType, issueToken } from './tokens.ts';

const GRANTS: GrantType[] = ['client_credentials', 'implicit'];

function field(body: Record<string, unknown>, name: string): string | undefined {
  const value = body[name];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw badRequest(`${name} must be a string.`, name);
  return value;
}

export function oauthRoutes(ctx: ServiceContext): FastifyPluginAsync {
  return async (app) => {
    app.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string' },
      (_request, body, done) => {
        // Last value wins for a repeated key, like most form decoders.
        done(null, Object.fromEntries(new URLSearchParams(body as string)));
      },
    );

    app.post('/oauth/access_token', async (request, reply) => {
      const body = request.body;
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        throw badRequest(
          'Send grant_type, client_id (and client_secret) as application/x-www-form-urlencoded.',
        );
      }
      const fields = body as Record<string, unknown>;
      const grant = field(fields, 'grant_type');
      if (grant === undefined) {
        throw badRequest('grant_type is required: client_credentials or implicit.', 'grant_type');
      }
      if (!GRANTS.includes(grant as GrantType)) {
        throw badRequest(
          `Unsupported grant_type "${grant}"; use client_credentials or implicit.`,
          'grant_type',
        );
      }
      const clientId = field(fields, 'client_id');
      if (clientId === undefined) throw badRequest('client_id is required.', 'client_id');
      const secret = field(fields, 'client_secret');
      if (grant === 'client_credentials' && secret === undefined) {
        throw badRequest(
          'client_secret is required for the client_credentials grant.',
          'client_secret',
        );
      }
      // The implicit grant ignores any secret: it only ever yields a read-only token.
      const client = findClient(ctx.clients, clientId, grant === 'implicit' ? undefined : secret);
      if (!client) {
        throw new ApiError(401, 'Unknown client_id or wrong client_secret.');
      }
      reply.header('cache-control', 'no-store');
      return issueToken(ctx.db, ctx.clock, client, grant as GrantType);
    });
  };
}
