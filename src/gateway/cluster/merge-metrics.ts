/**
 * One Prometheus exposition from every worker's (`WORKERS`): each family once, with its HELP and
 * TYPE, and each worker's samples under it labelled `worker="<id>"`. Counters and histograms stay
 * per worker rather than summed here, so a worker that restarts is a new series (its counters
 * start again at 0) instead of a total that goes backwards; `sum without (worker) (…)` adds them.
 */

/** Labels one sample line: the label goes first, before the sample's own labels if it has any. */
function labelled(line: string, label: string): string {
  // A metric name never contains `{` or a space: the first of them ends it.
  const brace = line.indexOf('{');
  const space = line.indexOf(' ');
  if (brace !== -1 && (space === -1 || brace < space)) {
    const rest = line.slice(brace + 1);
    return `${line.slice(0, brace)}{${label}${rest.startsWith('}') ? '' : ','}${rest}`;
  }
  return space === -1 ? line : `${line.slice(0, space)}{${label}}${line.slice(space)}`;
}

interface Family {
  comments: string[];
  samples: string[];
}

/** Merges `texts` (worker id → its exposition) into one exposition. */
export function mergeExpositions(texts: ReadonlyMap<number | string, string>): string {
  const families = new Map<string, Family>();
  for (const [worker, text] of texts) {
    const label = `worker="${String(worker).replace(/["\\\n]/g, '')}"`;
    let current: Family | undefined;
    for (const line of text.split('\n')) {
      if (line === '') continue;
      const comment = /^# (HELP|TYPE) (\S+)/.exec(line);
      if (comment) {
        const name = comment[2] as string;
        current = families.get(name);
        if (current === undefined) {
          current = { comments: [], samples: [] };
          families.set(name, current);
        }
        // The first worker's HELP and TYPE stand for all (every worker runs the same code).
        if (!current.comments.some((kept) => kept.startsWith(`# ${comment[1]} `))) {
          current.comments.push(line);
        }
        continue;
      }
      if (line.startsWith('#')) continue;
      if (current === undefined) {
        // A sample before any HELP/TYPE: a family of its own, untyped.
        current = { comments: [], samples: [] };
        families.set(line.split(/[{ ]/, 1)[0] as string, current);
      }
      current.samples.push(labelled(line, label));
    }
  }
  let out = '';
  for (const family of families.values()) {
    for (const line of family.comments) out += `${line}\n`;
    for (const line of family.samples) out += `${line}\n`;
  }
  return out;
}
