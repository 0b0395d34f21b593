/** What `npm run service` prints about where it listens (./main.ts). */
import type { AddressInfo } from 'node:net';

/**
 * The address the server is bound to, as a URL (fastify's own answer names 127.0.0.1 for a
 * server bound to every interface), and the URL that reaches it from this machine.
 */
export function listeningAddress(
  address: AddressInfo | string | null,
  scheme: 'http' | 'https' = 'http',
): {
  bound: string;
  local: string;
} {
  if (address === null || typeof address === 'string') {
    throw new Error(`the service is not listening on a TCP port (${String(address)})`);
  }
  const url = (host: string) =>
    `${scheme}://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
  const wildcard = address.address === '0.0.0.0' || address.address === '::';
  return {
    bound: url(address.address),
    local: url(wildcard ? (address.address === '::' ? '::1' : '127.0.0.1') : address.address),
  };
}
