/**
 * GraphiQL: a newcomer's first query works because the page already carries a demo token, and
 * the page and its assets come from the gateway alone (the browser test runs it in Chromium).
 */
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { demoTokenChooser, GRAPHIQL_CSP } from '../../src/gateway/graphiql.ts';
import { createGateway } from '../../src/index.ts';

const page = async (gateway: ReturnType<typeof createGateway>): Promise<string> => {
  // The Host header a browser on this machine sends (demoTokenChooser reads it).
  const response = await gateway.fetch('http://localhost/graphql', {
    headers: { accept: 'text/html', host: 'localhost:4000' },
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/html');
  return response.text();
};

describe('GraphiQL', () => {
  it('opens with the demo token in its default headers, renewed on the next load', async () => {
    let token = 'first0demo0token';
    const gateway = createGateway({
      upstreamUrl: 'http://127.0.0.1:9',
      demoToken: () => token,
    });
    expect(await page(gateway)).toContain('Bearer first0demo0token');
    token = 'second0demo0token';
    const reloaded = await page(gateway);
    expect(reloaded).toContain('Bearer second0demo0token');
    expect(reloaded).not.toContain('first0demo0token');
    await gateway.dispose();
  });

  it('opens a second tab with the storefront token and a shopper’s page, when asked locally', async () => {
    const gateway = createGateway({
      upstreamUrl: 'http://127.0.0.1:9',
      demoToken: demoTokenChooser({
        bindHost: '127.0.0.1',
        readWrite: () => 'store0token',
        storefront: () => 'shopper0token',
      }),
    });
    const html = await page(gateway);
    const options = JSON.parse(
      /<script type="application\/json" id="graphiql-options">([\s\S]*?)<\/script>/.exec(
        html,
      )?.[1] ?? 'null',
    );
    expect(options.defaultTabs).toHaveLength(2);
    expect(JSON.parse(options.defaultTabs[0].headers)).toEqual({
      Authorization: 'Bearer store0token',
    });
    expect(options.defaultTabs[0].query).toBe(options.defaultQuery);
    expect(JSON.parse(options.defaultTabs[1].headers)).toEqual({
      Authorization: 'Bearer shopper0token',
    });
    expect(options.defaultTabs[1].query).toContain('query CategoryMenu');
    await gateway.dispose();
  });

  it('carries no Authorization header when no demo token is configured', async () => {
    const gateway = createGateway({ upstreamUrl: 'http://127.0.0.1:9' });
    expect(await page(gateway)).not.toContain('Bearer');
    await gateway.dispose();
  });

  it('is not served when switched off', async () => {
    const gateway = createGateway({ upstreamUrl: 'http://127.0.0.1:9', graphiql: false });
    const response = await gateway.fetch('http://localhost/graphql', {
      headers: { accept: 'text/html' },
    });
    expect(await response.text()).not.toContain('<html');
    await gateway.dispose();
  });

  it('serves a page with a strict CSP that loads only its own /graphiql/ assets', async () => {
    const gateway = createGateway({ upstreamUrl: 'http://127.0.0.1:9', demoToken: 'tok' });
    const response = await gateway.fetch('http://localhost/graphql', {
      headers: { accept: 'text/html' },
    });
    expect(response.headers.get('content-security-policy')).toBe(GRAPHIQL_CSP);
    expect(GRAPHIQL_CSP).toContain("default-src 'none'");
    expect(GRAPHIQL_CSP).toContain("script-src 'self';");
    const html = await response.text();
    expect(html).not.toMatch(/https?:\/\//);
    // No inline script: only same-origin script files and the (never executed) options block.
    const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts).toHaveLength(4);
    for (const [, attributes, body] of scripts) {
      if (attributes?.includes('type="application/json"')) continue;
      expect(attributes).toMatch(/ src="\/graphiql\/[0-9a-f]{12}\/[a-z.-]+\.js"/);
      expect(body).toBe('');
    }
    expect(html).toContain('query SearchPage');
    await gateway.dispose();
  });

  it('serves every asset the page names, cacheable and gzipped on request', async () => {
    const gateway = createGateway({ upstreamUrl: 'http://127.0.0.1:9' });
    const html = await page(gateway);
    const urls = [...html.matchAll(/(?:src|href)="(\/graphiql\/[^"]+)"/g)].map((m) => m[1]);
    expect(urls.length).toBe(5);
    const base = urls[0]?.replace(/[^/]*$/, '');
    for (const name of ['editor.worker.js', 'json.worker.js', 'graphql.worker.js']) {
      urls.push(`${base}${name}`);
    }
    for (const url of urls) {
      const response = await gateway.fetch(`http://localhost${url}`);
      expect(response.status, url).toBe(200);
      expect(response.headers.get('cache-control')).toContain('immutable');
      expect(response.headers.get('content-type')).toMatch(
        url?.endsWith('.js')
          ? /^text\/javascript/
          : url?.endsWith('.css')
            ? /^text\/css/
            : /^image\//,
      );
      expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(100);
    }
    const script = `http://localhost${base}yoga-graphiql.js`;
    const plain = await (await gateway.fetch(script)).text();
    expect(plain).toContain('renderYogaGraphiQL');
    const zipped = await gateway.fetch(script, { headers: { 'accept-encoding': 'gzip' } });
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    const body = Buffer.from(await zipped.arrayBuffer());
    // Whether the fetch layer inflated it already or not, the bytes are GraphiQL's script.
    const text =
      body[0] === 0x1f && body[1] === 0x8b ? gunzipSync(body).toString() : body.toString();
    expect(text).toBe(plain);
    await gateway.dispose();
  });

  it('answers unknown or stale asset paths with 404 and writes with 405', async () => {
    const gateway = createGateway({ upstreamUrl: 'http://127.0.0.1:9' });
    const base = (await page(gateway)).match(/src="(\/graphiql\/[0-9a-f]+\/)/)?.[1];
    expect((await gateway.fetch(`http://localhost${base}nope.js`)).status).toBe(404);
    expect((await gateway.fetch('http://localhost/graphiql/000000000000/start.js')).status).toBe(
      404,
    );
    expect((await gateway.fetch(`http://localhost${base}../start.js`)).status).toBe(404);
    const post = await gateway.fetch(`http://localhost${base}start.js`, { method: 'POST' });
    expect(post.status).toBe(405);
    await gateway.dispose();
  });

  it('keeps options inside their data block whatever they contain', async () => {
    const { renderGraphiQLPage } = await import('../../src/gateway/graphiql.ts');
    const html = renderGraphiQLPage({
      title: '<b>x</b>',
      defaultQuery: '# </script><script>alert(1)</script>\n{ __typename }',
    });
    expect(html).toContain('<title>&lt;b&gt;x&lt;/b&gt;</title>');
    expect(html.match(/<\/script>/g)).toHaveLength(4);
    const block = html.match(/id="graphiql-options">([^<]*)<\/script>/)?.[1] ?? '';
    expect(JSON.parse(block).defaultQuery).toContain('</script><script>alert(1)</script>');
  });

  it('serves no assets when GraphiQL is off', async () => {
    const on = createGateway({ upstreamUrl: 'http://127.0.0.1:9' });
    const asset = (await page(on)).match(/src="(\/graphiql\/[^"]+)"/)?.[1];
    await on.dispose();
    const off = createGateway({ upstreamUrl: 'http://127.0.0.1:9', graphiql: false });
    expect((await off.fetch(`http://localhost${asset}`)).status).toBe(404);
    await off.dispose();
  });
});
