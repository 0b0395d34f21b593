/**
 * Single lookups shared by query fields and `node(id:)`: a nullable lookup turns the
 * upstream's 404 into null (e.g. a list of a Custom API the store does not have), every other
 * error stays an error.
 */

import type { JsonObject } from '../upstream/client.ts';
import { NotFoundError } from '../upstream/errors.ts';
import type { GatewayContext } from '../upstream/session.ts';

export async function nullWhenNotFound<T>(lookup: Promise<T>): Promise<T | null> {
  try {
    return await lookup;
  } catch (error) {
    if (error instanceof NotFoundError) return null;
    throw error;
  }
}

/**
 * One row of a v2 list by upstream id, through the per-request batch loader: lookups of the
 * same list in one operation (fields, aliases, `nodes(ids:)`) become one `in(id,…)` call.
 */
export async function loadById<T>(
  context: GatewayContext,
  listSegments: readonly string[],
  id: string,
  toNode: (row: JsonObject) => T,
): Promise<T | null> {
  const row = await nullWhenNotFound(context.byIdLoader(listSegments).load(id));
  return row === null ? null : toNode(row);
}
