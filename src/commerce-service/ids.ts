/** Identifiers: lowercase uuids (v4 form), random for records, derived for stores. */
import { createHash, randomUUID } from 'node:crypto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function newId(): string {
  return randomUUID();
}

/** True for a uuid in canonical 8-4-4-4-12 form (any version; case-insensitive). */
export function isUuid(value: string): boolean {
  return UUID.test(value.toLowerCase());
}

/** Formats the first 16 bytes of a digest as a uuid with the v4 version and variant bits. */
export function uuidFromBytes(bytes: Uint8Array): string {
  const b = Buffer.from(bytes.subarray(0, 16));
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const hex = b.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The store of a client, derived from the client id alone, so a restart with the same
 * COMMERCE_CLIENTS finds the same stores in an existing database.
 */
export function storeIdForClient(clientId: string): string {
  return uuidFromBytes(createHash('sha256').update(`commerce-store:${clientId}`).digest());
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}
