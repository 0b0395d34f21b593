/**
 * The REST paths of a described resource (resource.ts) as the segments the upstream client
 * takes: below /v2 as they are, below another root (`/pcm/products`) with the root as the first
 * segment (src/upstream/route-template.ts), and `{param}` parts filled per request.
 */
import { UPSTREAM_ROOTS } from '../upstream/index.ts';
import type { PathParams } from './resource-fields.ts';

export type Segment = string | { param: string };

/**
 * `/v2/a/{b}/c` as the segments the upstream client takes: below /v2 as they are, below another
 * root (`/pcm/products`) with the root as the first segment (src/upstream/route-template.ts).
 */
export function parsePath(path: string, name: string): Segment[] {
  const root = UPSTREAM_ROOTS.find((one) => path.startsWith(`${one}/`));
  if (root === undefined) {
    throw new Error(`resource ${name}: ${path} is below none of ${UPSTREAM_ROOTS.join(', ')}`);
  }
  const below = path
    .slice(root.length + 1)
    .split('/')
    .map((part): Segment => {
      const param = /^\{(\w+)\}$/.exec(part)?.[1];
      return param === undefined ? part : { param };
    });
  return root === '/v2' ? below : [root, ...below];
}

export function segmentsOf(template: readonly Segment[], params: PathParams): string[] {
  return template.map((part) => (typeof part === 'string' ? part : (params[part.param] as string)));
}
