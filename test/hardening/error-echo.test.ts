/**
 * What an error repeats of a client's input is bounded: a name longer than MAX_NAME_LENGTH is
 * refused before any other rule can repeat it, and every error message — syntax, validation,
 * variables — cuts a long run of the client's text at MAX_ECHO characters with an ellipsis. A
 * 300 KB name or value costs the client its own request, never a 300 KB (or 600 KB) answer.
 * Over real sockets, on the fast path and on Yoga's handler.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capEcho, MAX_ECHO, MAX_NAME_LENGTH } from '../../src/gateway/armor.ts';
import { withoutQuotedInput } from '../../src/gateway/error-answers.ts';
import { type Stack, startStack } from '../support/harness.ts';

const BIG = 300_000;
const x = (n: number) => 'x'.repeat(n);
const cut = `${x(MAX_ECHO)}…`;

for (const fastPath of [true, false]) {
  describe(`a 300 KB name or value (fast path ${fastPath})`, () => {
    let stack: Stack;
    beforeAll(async () => {
      stack = await startStack({ fastPath });
    });
    afterAll(() => stack.close());

    async function answer(query: string, variables?: Record<string, unknown>) {
      const before = stack.upstreamRequests.length;
      const result = await stack.graphql(query, variables, { token: null });
      expect(stack.upstreamRequests.length).toBe(before);
      expect(result.status).toBeLessThan(500);
      expect(JSON.stringify(result.body).length).toBeLessThan(2_000);
      return result.body.errors as { message: string; extensions: Record<string, unknown> }[];
    }

    const nameRefusal = [
      {
        message: `A name in the document is ${BIG + 10} characters long; the maximum is ${MAX_NAME_LENGTH}`,
        locations: [{ line: 1, column: 3 }],
        extensions: { code: 'QUERY_TOO_COMPLEX', limit: 'maxNameLength', maximum: 100 },
      },
    ];

    it('as a field name, an alias or an argument: refused, saying the length, not repeating it', async () => {
      expect(await answer(`{ __typename${x(BIG)} }`)).toEqual(nameRefusal);
      expect(await answer(`{ ${x(BIG + 10)}: __typename }`)).toEqual(nameRefusal);
      const argument = await answer(`{ orders(${x(BIG)}: 1) { totalCount } }`);
      expect(argument[0]?.message).toBe(
        `A name in the document is ${BIG} characters long; the maximum is 100`,
      );
      // A name of the maximum is only a name.
      const unknown = await answer(`{ ${x(MAX_NAME_LENGTH)} }`);
      expect(unknown[0]?.message).toBe(`Cannot query field "${x(100)}" on type "Query".`);
    });

    it('in a syntax error: cut with an ellipsis', async () => {
      const errors = await answer(`{ "${x(BIG)}" }`);
      expect(errors).toHaveLength(1);
      expect(errors[0]?.message).toBe(`Syntax Error: Expected Name, found String "${cut}".`);
    });

    it('as a variable value: cut with an ellipsis', async () => {
      const errors = await answer('query($n: Int) { orders(first: $n) { totalCount } }', {
        n: x(BIG),
      });
      expect(errors).toHaveLength(1);
      expect(errors[0]?.message).toBe(
        `Variable "$n" got invalid value "${cut}"; Int cannot represent non-integer value: "${cut}"`,
      );
      expect(errors[0]?.extensions.code).toBe('BAD_USER_INPUT');
      // Short words with spaces: the message as a whole is cut.
      const spaced = await answer('query($n: Int) { orders(first: $n) { totalCount } }', {
        n: 'x '.repeat(BIG / 2),
      });
      expect(spaced[0]?.message.length).toBe(1_001);
      expect(spaced[0]?.message.endsWith('…')).toBe(true);
    });
  });
}

describe('withoutQuotedInput', () => {
  it('drops the input object graphql-js quotes around a mistake, keeping the path and reason', () => {
    expect(
      withoutQuotedInput(
        'Variable "$i" got invalid value { name: "a; at \\"b", secretKey: "s3cret", x: 1 }; Field "x" is not defined by type "In".',
      ),
    ).toBe('Variable "$i" got invalid value {…}; Field "x" is not defined by type "In".');
    expect(
      withoutQuotedInput(
        'Variable "$i" got invalid value { a: { b: "}" }, k: "s3cret" }; Expected value of type "In" not to include unknown field "x", found: { k: "s3cret", x: [1] }.',
      ),
    ).toBe(
      'Variable "$i" got invalid value {…}; Expected value of type "In" not to include unknown field "x", found: {…}.',
    );
    expect(
      withoutQuotedInput('Variable "$i" got invalid value ["s3cret", 1] at "i.list[1]"; bad'),
    ).toBe('Variable "$i" got invalid value […] at "i.list[1]"; bad');
    const scalar =
      'Variable "$n" got invalid value "x"; Int cannot represent non-integer value: "x"';
    expect(withoutQuotedInput(scalar)).toBe(scalar);
  });
});

describe('capEcho', () => {
  it('leaves ordinary messages alone', () => {
    for (const message of [
      'Cannot query field "orderz" on type "Query".',
      '`first` may be at most 1000, got 5000',
      `Query cost 86875 exceeds the maximum cost 5000: select fewer fields, or ask for smaller pages (first/last multiply the cost of what they select)`,
    ]) {
      expect(capEcho(message)).toBe(message);
    }
  });
});
