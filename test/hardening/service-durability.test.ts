/**
 * The embedded service under concurrent writers and under a crash, in its own process (as
 * `npm run service` runs it) with a real database file:
 * - concurrent PUTs with one If-Match: exactly one wins, the rest get 412, and read-modify-write
 *   loops that retry on 412 lose no update;
 * - SIGKILL while writes are in flight: the database opens again, passes an integrity check and
 *   holds every write that was acknowledged with a 2xx.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/commerce-service/sqlite.ts';

interface ServiceProcess {
  child: ChildProcess;
  url: string;
}

const dir = mkdtempSync(join(tmpdir(), 'commerce-durability-'));
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

async function startService(dbPath: string): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ['scripts/ts.mjs', 'src/commerce-service/main.ts'], {
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      COMMERCE_DB: dbPath,
      COMMERCE_SEED: '0',
      COMMERCE_CLIENTS: 'demo:demo-secret',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start: ${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/[^\s)]+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`service exited ${code}: ${output}`)));
  });
  return { child, url };
}

async function tokenFor(url: string): Promise<string> {
  const response = await fetch(`${url}/oauth/access_token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&client_id=demo&client_secret=demo-secret',
  });
  return ((await response.json()) as { access_token: string }).access_token;
}

function client(url: string, token: string) {
  return async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return {
      status: response.status,
      etag: response.headers.get('etag'),
      body: text === '' ? undefined : (JSON.parse(text) as any),
    };
  };
}

async function createApi(call: ReturnType<typeof client>, slug: string): Promise<string> {
  const created = await call('POST', '/v2/settings/extensions/custom-apis', {
    data: { type: 'custom_api', name: slug, slug, api_type: `${slug}_ext`, description: slug },
  });
  expect(created.status).toBe(201);
  return created.body.data.id as string;
}

describe('concurrent If-Match updates of one entry', () => {
  let service: ServiceProcess;
  let call: ReturnType<typeof client>;
  let entries: string;

  beforeAll(async () => {
    service = await startService(join(dir, 'concurrency.db'));
    call = client(service.url, await tokenFor(service.url));
    entries = `/v2/settings/extensions/custom-apis/${await createApi(call, 'counters')}/entries`;
  });
  afterAll(async () => {
    service.child.kill('SIGTERM');
    await once(service.child, 'exit');
  });

  it('lets exactly one of 40 racing PUTs with the same etag win', async () => {
    const created = await call('POST', entries, { data: { type: 'counters_ext', value: 'start' } });
    const id = created.body.data.id as string;
    const etag = created.etag as string;
    expect(etag).toMatch(/^W\/"/);
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        call(
          'PUT',
          `${entries}/${id}`,
          { data: { type: 'counters_ext', value: `writer-${i}` } },
          { 'if-match': etag },
        ),
      ),
    );
    const winners = results.filter((r) => r.status === 200);
    expect(winners).toHaveLength(1);
    expect(results.filter((r) => r.status === 412)).toHaveLength(39);
    const now = await call('GET', `${entries}/${id}`);
    expect(now.body.data.value).toBe(winners[0]?.body.data.value);
    expect(now.body.data.meta.resource_version).toBe(1);
    expect(now.etag).toBe(winners[0]?.etag);
  });

  it('loses no update when 10 clients increment one counter with retry on 412', async () => {
    const created = await call('POST', entries, { data: { type: 'counters_ext', count: 0 } });
    const path = `${entries}/${created.body.data.id}`;
    let conflicts = 0;
    const incrementer = async (times: number) => {
      for (let done = 0; done < times; ) {
        const current = await call('GET', path);
        const next = (current.body.data.count as number) + 1;
        const put = await call(
          'PUT',
          path,
          { data: { type: 'counters_ext', count: next } },
          {
            'if-match': current.etag as string,
          },
        );
        if (put.status === 200) done++;
        else if (put.status === 412) conflicts++;
        else throw new Error(`unexpected ${put.status}`);
      }
    };
    await Promise.all(Array.from({ length: 10 }, () => incrementer(5)));
    const final = await call('GET', path);
    expect(final.body.data.count).toBe(50);
    expect(final.body.data.meta.resource_version).toBe(50);
    // The race was real: some writers had to retry.
    expect(conflicts).toBeGreaterThan(0);
  });
});

describe('SIGKILL during writes', () => {
  it('leaves a database that opens and holds every acknowledged write', async () => {
    const dbPath = join(dir, 'crash.db');
    const acknowledged = new Map<string, number>();
    let apiPath = '';

    for (let round = 0; round < 2; round++) {
      const service = await startService(dbPath);
      const call = client(service.url, await tokenFor(service.url));
      if (apiPath === '') {
        apiPath = `/v2/settings/extensions/custom-apis/${await createApi(call, 'crash')}/entries`;
      }
      // 16 writers in a loop; kill the process after 150 acknowledgements of this round,
      // while requests are still in flight.
      let ackedThisRound = 0;
      let killed = false;
      const exited = once(service.child, 'exit');
      const writer = async (w: number) => {
        for (let n = 0; !killed; n++) {
          const seq = round * 1_000_000 + w * 10_000 + n;
          try {
            const response = await call('POST', apiPath, { data: { type: 'crash_ext', seq } });
            if (response.status === 201) {
              acknowledged.set(response.body.data.id as string, seq);
              ackedThisRound++;
              if (ackedThisRound >= 150 && !killed) {
                killed = true;
                service.child.kill('SIGKILL');
              }
            }
          } catch {
            // The connection died with the process: this write was never acknowledged.
            return;
          }
        }
      };
      await Promise.all(Array.from({ length: 16 }, (_, w) => writer(w)));
      const [, signal] = await exited;
      expect(signal).toBe('SIGKILL');
    }

    // The file passes SQLite's own integrity check (the WAL is recovered on open).
    const db = new Database(dbPath);
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }

    // And the service, started on it again, serves every acknowledged write.
    const service = await startService(dbPath);
    try {
      const call = client(service.url, await tokenFor(service.url));
      const seen = new Map<string, number>();
      for (let offset = 0; ; offset += 100) {
        const page = await call('GET', `${apiPath}?page[limit]=100&page[offset]=${offset}&sort=id`);
        expect(page.status).toBe(200);
        for (const row of page.body.data) seen.set(row.id, row.seq);
        if (page.body.data.length < 100) break;
      }
      expect(acknowledged.size).toBeGreaterThanOrEqual(300);
      const missing = [...acknowledged].filter(([id, seq]) => seen.get(id) !== seq);
      expect(missing).toEqual([]);
    } finally {
      service.child.kill('SIGTERM');
      await once(service.child, 'exit');
    }
  });
});
