/** GraphiQL: a newcomer's first query works because the page already carries a demo token. */
import { describe, expect, it } from 'vitest';
import { createGateway } from '../../src/index.ts';

const page = async (gateway: ReturnType<typeof createGateway>): Promise<string> => {
  const response = await gateway.fetch('http://localhost/graphql', {
    headers: { accept: 'text/html' },
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
});
