/**
 * Tokens of the gateway's own, from the upstream's `POST /oauth/access_token`: the typed schema's
 * credential (SCHEMA_CLIENT_ID / SCHEMA_CLIENT_SECRET, ./custom-api-definitions.ts) and the demo
 * store's tokens `npm start` prints and GraphiQL carries. The one place a token is requested: on
 * the origin's one pool (./transport.ts), so a client secret can only ever reach the configured
 * origin, and never into a message. Callers' requests never come here: the gateway forwards
 * their own token.
 */
import { networkError } from './answers.ts';
import { isJsonObject } from './client.ts';
import { UnauthenticatedError, UpstreamUnavailableError } from './errors.ts';
import {
  createUpstreamTransport,
  exchangeOnSharedLane,
  type UpstreamTransport,
} from './transport.ts';

/**
 * A client id with its secret: a `client_credentials` (read-write) token; the client id alone:
 * an `implicit` token, what every storefront publishes, so a shopper's powers and no more.
 */
export interface TokenGrant {
  clientId: string;
  clientSecret?: string | undefined;
}

export interface AccessToken {
  value: string;
  /** Seconds the token lives, as the upstream said (an hour unless it said otherwise). */
  expiresIn: number;
}

/** One token request on the transport's pool. */
export async function requestToken(
  transport: UpstreamTransport,
  grant: TokenGrant,
  signal?: AbortSignal,
): Promise<AccessToken> {
  const form: Record<string, string> =
    grant.clientSecret === undefined
      ? { grant_type: 'implicit', client_id: grant.clientId }
      : {
          grant_type: 'client_credentials',
          client_id: grant.clientId,
          client_secret: grant.clientSecret,
        };
  let answer: Awaited<ReturnType<typeof exchangeOnSharedLane>>;
  try {
    answer = await exchangeOnSharedLane(
      transport,
      'POST',
      '/oauth/access_token',
      { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      new URLSearchParams(form).toString(),
      signal,
    );
  } catch (error) {
    throw networkError(error, 'POST');
  }
  const { status } = answer;
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    body = undefined;
  }
  const accessToken = isJsonObject(body) ? body.access_token : undefined;
  if (status === 200 && typeof accessToken === 'string') {
    const expiresIn =
      isJsonObject(body) && typeof body.expires_in === 'number' ? body.expires_in : 3600;
    return { value: accessToken, expiresIn };
  }
  // The status only: the body may echo what was sent.
  if (status >= 500 || status === 200) {
    throw new UpstreamUnavailableError(
      `The commerce service could not issue a token for client "${grant.clientId}": status ${status}`,
      { reason: status === 200 ? 'invalid-body' : 'status', upstreamStatus: status },
    );
  }
  throw new UnauthenticatedError(
    `The credential of client "${grant.clientId}" was refused: status ${status}`,
  );
}

/** A token of one grant, requested when first needed and again a minute before it expires. */
export interface TokenSource {
  get(signal?: AbortSignal): Promise<string>;
  /** Forgets the token (the upstream refused it early): the next `get` requests a new one. */
  forget(): void;
  /** A token is held now. */
  readonly held: boolean;
}

export function createTokenSource(transport: UpstreamTransport, grant: TokenGrant): TokenSource {
  let token: { value: string; renewAt: number } | undefined;
  return {
    async get(signal) {
      if (token !== undefined && Date.now() < token.renewAt) return token.value;
      const fresh = await requestToken(transport, grant, signal);
      // Renewed a minute early, so a read never starts with a token about to expire.
      token = {
        value: fresh.value,
        renewAt: Date.now() + Math.max(0, fresh.expiresIn - 60) * 1000,
      };
      return fresh.value;
    },
    forget() {
      token = undefined;
    },
    get held() {
      return token !== undefined;
    },
  };
}

/**
 * A `client_credentials` token of a v2 service, on a pool of its own that is closed after: for
 * tools that are not a gateway (benchmarks, test set-up); a gateway asks its front door
 * (./index.ts, `token`).
 */
export async function fetchClientToken(
  baseUrl: string,
  client: { id: string; secret: string },
): Promise<string> {
  const transport = createUpstreamTransport(baseUrl, { connections: 1 });
  try {
    return (await requestToken(transport, { clientId: client.id, clientSecret: client.secret }))
      .value;
  } finally {
    await transport.close();
  }
}
