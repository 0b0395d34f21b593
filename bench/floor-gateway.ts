/**
 * The calibration floor for the 25-order page: node:http, one undici dispatch to the upstream,
 * `JSON.parse` of its body and a hand-built answer (`{ data: { orders: { edges } } }` with
 * global ids) — what any gateway for that query pays before GraphQL or any feature. It ignores
 * the query except for `first: N`, and does nothing else; run it beside the gateways with
 * bench/pairs.ts: '{"ENTRY":"bench/floor-gateway.ts"}'. PORT and UPSTREAM_URL as the others.
 */
import { createServer } from 'node:http';
import { Pool } from 'undici';

const upstream = process.env.UPSTREAM_URL ?? 'http://127.0.0.1:4010';
const pool = new Pool(upstream, { connections: 64 });

function get(path: string, authorization: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    pool.dispatch(
      { method: 'GET', path, headers: { authorization, accept: 'application/json' } },
      {
        onRequestStart() {},
        onResponseStart() {},
        onResponseData(_controller, chunk) {
          chunks.push(chunk);
          size += chunk.length;
        },
        onResponseEnd() {
          resolve(Buffer.concat(chunks, size).toString('utf8'));
        },
        onResponseError(_controller, error) {
          reject(error);
        },
      },
    );
  });
}

createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', async () => {
    try {
      const { query } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { query: string };
      const first = Number(/first: (\d+)/.exec(query)?.[1] ?? 25);
      const page = JSON.parse(
        await get(
          `/v2/orders?page%5Blimit%5D=${first}&page%5Boffset%5D=0&sort=created_at`,
          req.headers.authorization ?? '',
        ),
      ) as { data: { id: string; status: string }[] };
      const edges = page.data.map((order) => ({
        node: { id: Buffer.from(`Order:${order.id}`).toString('base64'), status: order.status },
      }));
      const text = JSON.stringify({ data: { orders: { edges } } });
      res.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(text),
      });
      res.end(text);
    } catch (error) {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(error));
    }
  });
}).listen(Number(process.env.PORT ?? 4000), '127.0.0.1');

// A clean exit on SIGTERM, so a --cpu-prof of the floor (bench/pairs.ts PROF) is written.
process.on('SIGTERM', () => process.exit(0));
