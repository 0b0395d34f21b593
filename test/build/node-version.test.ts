/**
 * The Node check of src/main.ts (src/node-version.ts): package.json's `engines` is the one
 * statement of the Node needed, and an older Node gets that in one line.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { nodeVersionProblem, requiredNode } from '../../src/node-version.ts';

const line = (version: string) =>
  `commerce-gateway needs Node 22.19 or newer (package.json engines); this is Node ${version}`;

describe('nodeVersionProblem', () => {
  it('reads the range from package.json engines', () => {
    const { engines } = JSON.parse(readFileSync('package.json', 'utf8')) as {
      engines: { node: string };
    };
    expect(requiredNode()).toBe(engines.node);
    expect(requiredNode()).toBe('>=22.19');
  });

  it('names the Node needed and the one running, for any older Node', () => {
    expect(nodeVersionProblem('20.20.2')).toBe(line('20.20.2'));
    expect(nodeVersionProblem('v18.0.0')).toBe(line('18.0.0'));
    expect(nodeVersionProblem('22.18.9')).toBe(line('22.18.9'));
    expect(nodeVersionProblem('22.5.1')).toBe(line('22.5.1'));
  });

  it('is satisfied by the floor and anything newer', () => {
    for (const version of ['22.19.0', '22.23.1', '23.0.0', '24.21.0', '26.10.0', '100.0.0']) {
      expect(nodeVersionProblem(version), version).toBeUndefined();
    }
    expect(nodeVersionProblem()).toBeUndefined();
  });

  it('compares every part of a three-part range and refuses other forms', () => {
    expect(nodeVersionProblem('22.19.0', '>=22.19.1')).toBe(
      'commerce-gateway needs Node 22.19.1 or newer (package.json engines); this is Node 22.19.0',
    );
    expect(nodeVersionProblem('22.19.1', '>=22.19.1')).toBeUndefined();
    expect(() => nodeVersionProblem('22.19.0', '^22.19 || >=24')).toThrow(
      'engines.node "^22.19 || >=24" is not of the form >=X.Y',
    );
  });
});
