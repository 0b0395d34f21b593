/**
 * The shopper's context as arguments (issue 31, item 7): `@inContext(currency:, language:,
 * channel:, tag:)` on the operation is sent on every upstream call of that operation over the
 * request's headers (the fallback), judged before any call; money has a decimal string, and its
 * `formatted` follows the operation's language.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decimalOf } from '../../src/schema/money.ts';
import { type Stack, startStack } from '../support/harness.ts';

let stack: Stack;
let shopper: string;
beforeAll(async () => {
  stack = await startStack({ seed: true, seedOptions: { orders: 5 } });
  shopper = await stack.implicitToken();
});
afterAll(() => stack?.close());

/** The context every upstream call of `run` carried. */
async function contextsOf(run: () => Promise<unknown>) {
  const from = stack.upstreamRequests.length;
  await run();
  return stack.upstreamRequests.slice(from).map((request) => request.context);
}

const PAGE = `
  catalog {
    product(sku: "TEE-001") { catalogId name children(first: 2) { nodes { sku } } }
    search(query: "tee", first: 2) { totalCount }
  }`;

describe('@inContext', () => {
  it('sends its currency, language, channel and tag on every call, over the headers', async () => {
    let answer: any;
    const contexts = await contextsOf(async () => {
      answer = await stack.graphql(
        `query Page @inContext(currency: "EUR", language: "de-DE", channel: "mobile", tag: "vip") {${PAGE} }`,
        {},
        {
          token: shopper,
          headers: { 'x-moltin-currency': 'USD', 'ep-channel': 'web', 'accept-language': 'en' },
        },
      );
    });
    expect(answer.body.errors).toBeUndefined();
    expect(contexts.length).toBeGreaterThan(1);
    for (const context of contexts) {
      expect(context).toEqual({
        currency: 'EUR',
        language: 'de-DE',
        channel: 'mobile',
        tag: 'vip',
      });
    }
    // The mobile rule's catalog answered, as EP-Channel: mobile alone would have.
    const byHeader = await stack.graphql(
      `{${PAGE} }`,
      {},
      {
        token: shopper,
        headers: { 'ep-channel': 'mobile' },
      },
    );
    expect(answer.body.data.catalog.product.catalogId).toBe(
      byHeader.body.data.catalog.product.catalogId,
    );
    const web = await stack.graphql(`{${PAGE} }`, {}, { token: shopper });
    expect(answer.body.data.catalog.product.catalogId).not.toBe(
      web.body.data.catalog.product.catalogId,
    );
  });

  it('takes variables, and leaves the headers to what it does not name', async () => {
    const contexts = await contextsOf(async () => {
      const answer = await stack.graphql(
        `query Page($currency: String) @inContext(currency: $currency) {${PAGE} }`,
        { currency: 'EUR' },
        { token: shopper, headers: { 'ep-channel': 'mobile' } },
      );
      expect(answer.body.errors).toBeUndefined();
    });
    for (const context of contexts) {
      expect(context).toMatchObject({ currency: 'EUR', channel: 'mobile' });
    }
  });

  it('refuses a value that cannot be sent, naming the argument, before any call', async () => {
    for (const [directive, field] of [
      ['@inContext(currency: "EURO")', '@inContext(currency:)'],
      ['@inContext(channel: "a b")', '@inContext(channel:)'],
      ['@inContext(language: "fr\\nX-Evil: 1")', '@inContext(language:)'],
    ]) {
      const contexts = await contextsOf(async () => {
        const answer = await stack.graphql(
          `query Page ${directive} {${PAGE} }`,
          {},
          { token: shopper },
        );
        expect(answer.body.data ?? null).toBeNull();
        expect(answer.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field });
        expect(answer.body.errors[0].message).toContain(field);
      });
      expect(contexts).toEqual([]);
    }
  });
});

describe('money', () => {
  it('has a decimal string beside its minor units', () => {
    expect(decimalOf(-1250, 'USD')).toBe('-12.50');
    expect(decimalOf(5, 'EUR')).toBe('0.05');
    expect(decimalOf(500, 'JPY')).toBe('500');
    expect(decimalOf(0, 'USD')).toBe('0.00');
  });

  it('is formatted in the operation’s language, else as the store writes it', async () => {
    const query = (directive: string) => `query Price ${directive} {
      catalog { product(sku: "TEE-001") { price(currency: "EUR") { amount { amount currency decimal formatted } } } }
    }`;
    const plain = await stack.graphql(query(''), {}, { token: shopper });
    const money = plain.body.data.catalog.product.price.amount;
    expect(money.decimal).toBe(decimalOf(money.amount, 'EUR'));
    const german = await stack.graphql(
      query('@inContext(language: "de-DE")'),
      {},
      { token: shopper },
    );
    expect(german.body.data.catalog.product.price.amount.formatted).toBe(
      new Intl.NumberFormat('de-DE', { style: 'currency', currency: 'EUR' }).format(
        Number(money.decimal),
      ),
    );
    // The header alone says the language too.
    const french = await stack.graphql(
      query(''),
      {},
      {
        token: shopper,
        headers: { 'accept-language': 'fr-FR, en;q=0.5' },
      },
    );
    expect(french.body.data.catalog.product.price.amount.formatted).toBe(
      new Intl.NumberFormat('fr-FR', { style: 'currency', currency: 'EUR' }).format(
        Number(money.decimal),
      ),
    );
  });
});
