/**
 * Imported first by src/main.ts, for its side effect: on a Node older than package.json's
 * `engines`, one line that says which Node is needed, and exit 1, before any other module of the
 * gateway runs (ES modules run in the order of their imports).
 */
import { nodeVersionProblem } from './node-version.ts';

const problem = nodeVersionProblem();
if (problem !== undefined) {
  console.error(problem);
  process.exit(1);
}
