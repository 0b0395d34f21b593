import { request } from 'undici';
import type { ClientCredentials } from './config.ts';

/**
 * Obtains a client_credentials token from a v2 service's `POST /oauth/access_token`. Only the
 * process that starts things uses it (the demo token of `npm start`, benchmarks): the gateway
 * itself never obtains tokens, it forwards the caller's.
 */
export async function fetchClientToken(
  baseUrl: string,
  client: ClientCredentials,
): Promise<string> {
  const response = await request(`${baseUrl}/oauth/access_token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: client.id,
      client_secret: client.secret,
    }).toString(),
  });
  const body = (await response.body.json()) as { access_token?: unknown };
  if (response.statusCode !== 200 || typeof body.access_token !== 'string') {
    throw new Error(
      `could not obtain a token for client "${client.id}" (status ${response.statusCode})`,
    );
  }
  return body.access_token;
}
