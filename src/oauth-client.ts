import { request } from 'undici';
import type { ClientCredentials } from './config.ts';

/**
 * Obtains a client_credentials (read-write) token from a v2 service's `POST /oauth/access_token`.
 * Only the process that starts things uses it (the demo token of `npm start`, benchmarks): the
 * gateway itself never obtains tokens, it forwards the caller's.
 */
export function fetchClientToken(baseUrl: string, client: ClientCredentials): Promise<string> {
  return fetchToken(baseUrl, client.id, {
    grant_type: 'client_credentials',
    client_id: client.id,
    client_secret: client.secret,
  });
}

/**
 * Obtains an implicit token from the same endpoint: the client id alone, what every storefront
 * publishes, so a shopper's powers and no more. GraphiQL carries it when its page is asked for
 * from anywhere but this machine (src/gateway/graphiql.ts, demoTokenChooser).
 */
export function fetchImplicitToken(baseUrl: string, clientId: string): Promise<string> {
  return fetchToken(baseUrl, clientId, { grant_type: 'implicit', client_id: clientId });
}

async function fetchToken(
  baseUrl: string,
  clientId: string,
  form: Record<string, string>,
): Promise<string> {
  const response = await request(`${baseUrl}/oauth/access_token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  const body = (await response.body.json()) as { access_token?: unknown };
  if (response.statusCode !== 200 || typeof body.access_token !== 'string') {
    throw new Error(
      `could not obtain a token for client "${clientId}" (status ${response.statusCode})`,
    );
  }
  return body.access_token;
}
