/**
 * Single lookups shared by query fields and `node(id:)`: a nullable lookup turns the
 * upstream's 404 into null (e.g. a list of a Custom API the store does not have), every other
 * error stays an error. Lookups by id of the described resources batch through the request's
 * `byIdLoader` (resource.ts).
 */

import { NotFoundError } from '../upstream/errors.ts';

export async function nullWhenNotFound<T>(lookup: Promise<T>): Promise<T | null> {
  try {
    return await lookup;
  } catch (error) {
    if (error instanceof NotFoundError) return null;
    throw error;
  }
}
