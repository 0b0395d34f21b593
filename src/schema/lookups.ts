/**
 * Single lookups shared by query fields and `node(id:)`: a nullable lookup turns the
 * upstream's 404 into null, every other error stays an error.
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
